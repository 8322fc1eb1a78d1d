" `:make` with `dslc check --format gcc`; columns are display columns (%v).
if exists("current_compiler")
  finish
endif
let current_compiler = "dslc"
CompilerSet makeprg=dslc\ check\ --format\ gcc\ %
CompilerSet errorformat=%f:%l:%v:\ %t%*[^:]:\ %m
