" .dp files (dslc differential-privacy mechanisms)
autocmd BufNewFile,BufRead *.dp setfiletype dp
