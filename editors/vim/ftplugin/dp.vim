" Settings for .dp files: comments, and `:make` runs `dslc check` into the quickfix list.
if exists("b:did_ftplugin")
  finish
endif
let b:did_ftplugin = 1
setlocal commentstring=//\ %s
setlocal comments=s1:/*,mb:*,ex:*/,://
setlocal iskeyword+='
compiler dslc
let b:undo_ftplugin = "setlocal commentstring< comments< iskeyword< makeprg< errorformat<"
