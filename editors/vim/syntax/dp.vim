" Syntax highlighting for .dp files (dslc).
if exists("b:current_syntax")
  finish
endif

syn keyword dpBlock automaton mechanism hmm mdp chain release nextgroup=dpBlockName skipwhite
syn match dpBlockName "[A-Za-z_][A-Za-z0-9_]*" contained
syn keyword dpState state nextgroup=dpStateName skipwhite
syn match dpStateName "[A-Za-z_][A-Za-z0-9_]*" contained
syn keyword dpKeyword loop if else break halt output store read
syn keyword dpKeyword import from with disjoint
syn keyword dpModifier input noinput
syn keyword dpDecl budget sensitivity states observations obs actions param prior secret protect check find assume emits initial transition length query method model
syn match dpLap "\<Lap['′]\?\ze\s*("
syn match dpInsample "\<insample['′]\?"
syn match dpConstant "ε\|⊤\|⊥"
syn keyword dpConstant eps top bot true stationary
syn match dpNumber "\<\d\+\(\.\d*\)\?\>"
syn match dpOperator ":=\|->\|→\|>=\|≥\|<=\|≤\|<\|>"
syn region dpString start=+"+ end=+"+ oneline
syn match dpComment "//.*$" contains=@Spell
syn region dpComment start="/\*" end="\*/" contains=@Spell

hi def link dpBlock Keyword
hi def link dpBlockName Type
hi def link dpState StorageClass
hi def link dpStateName Function
hi def link dpKeyword Statement
hi def link dpModifier StorageClass
hi def link dpDecl Keyword
hi def link dpLap Function
hi def link dpInsample Identifier
hi def link dpConstant Constant
hi def link dpNumber Number
hi def link dpOperator Operator
hi def link dpString String
hi def link dpComment Comment

let b:current_syntax = "dp"
