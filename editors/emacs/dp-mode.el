;;; dp-mode.el --- Major mode for .dp files (dslc) -*- lexical-binding: t; -*-

;; A small major mode for `.dp' differential-privacy mechanisms: comments,
;; highlighting, indentation by braces, and the dslc language server through
;; eglot (Emacs 29+ ships eglot; on Emacs 28 install it first, e.g. Debian's
;; elpa-eglot or `M-x package-install RET eglot').  Load it with
;;   (add-to-list 'load-path "/path/to/dslc/editors/emacs")
;;   (require 'dp-mode)

;;; Code:

(defvar dp-mode-syntax-table
  (let ((table (make-syntax-table)))
    ;; `//' line comments and `/* */' block comments
    (modify-syntax-entry ?/ ". 124b" table)
    (modify-syntax-entry ?* ". 23" table)
    (modify-syntax-entry ?\n "> b" table)
    (modify-syntax-entry ?\" "\"" table)
    (modify-syntax-entry ?_ "_" table)
    (modify-syntax-entry ?' "_" table)
    table)
  "Syntax table for `dp-mode'.")

(defconst dp-font-lock-keywords
  `((,(regexp-opt '("automaton" "mechanism" "hmm" "mdp" "chain" "release") 'symbols) . font-lock-keyword-face)
    ("\\_<\\(?:automaton\\|mechanism\\|hmm\\|mdp\\|chain\\|release\\)\\_>[ \t]+\\([A-Za-z_][A-Za-z0-9_]*\\)"
     1 font-lock-type-face)
    ("\\_<state\\_>[ \t]+\\([A-Za-z_][A-Za-z0-9_]*\\)" 1 font-lock-function-name-face)
    (,(regexp-opt '("state" "input" "noinput" "output" "store" "loop" "if" "else" "break" "halt"
                    "read" "states" "observations" "obs" "actions" "param" "prior" "secret"
                    "protect" "check" "find" "assume" "emits" "initial" "transition" "length"
                    "query" "method" "model" "budget" "sensitivity" "import" "from" "with" "disjoint")
                  'symbols)
     . font-lock-keyword-face)
    ("\\_<Lap['′]?" . font-lock-builtin-face)
    ("\\_<insample['′]?" . font-lock-variable-name-face)
    ("ε\\|⊤\\|⊥\\|\\_<\\(?:eps\\|top\\|bot\\|true\\)\\_>" . font-lock-constant-face))
  "Highlighting for `dp-mode'.")

(defcustom dp-indent-offset 4
  "Indentation of `.dp' blocks."
  :type 'integer :group 'languages)

(defun dp-indent-line ()
  "Indent the current line by the depth of braces around it.
A line that starts with a closing brace or bracket goes one level out; a
line inside brackets or parentheses whose first element is on the opening
line lines up with that element (rows of a matrix)."
  (interactive)
  (let* ((column
          (save-excursion
            (beginning-of-line)
            (let* ((ppss (syntax-ppss))
                   (depth (car ppss))
                   (open (nth 1 ppss)))
              (skip-chars-forward " \t")
              (cond
               ((and open (memq (char-after open) '(?\[ ?\())
                     (not (looking-at "[]})]"))
                     (save-excursion (goto-char (1+ open)) (not (looking-at "[ \t]*$"))))
                (save-excursion (goto-char (1+ open)) (current-column)))
               (t (* dp-indent-offset (max 0 (if (looking-at "[]})]") (1- depth) depth)))))))))
    (if (> (current-column) (current-indentation))
        (save-excursion (indent-line-to column))   ; keep point where it was in the text
      (indent-line-to column))))

;;;###autoload
(define-derived-mode dp-mode prog-mode "DP"
  "Major mode for `.dp' differential-privacy mechanisms (dslc)."
  (setq-local comment-start "// ")
  (setq-local comment-end "")
  (setq-local font-lock-defaults '(dp-font-lock-keywords))
  (setq-local indent-line-function #'dp-indent-line)
  (setq-local indent-tabs-mode nil)
  (setq-local electric-indent-chars (append "{}" electric-indent-chars)))

;;;###autoload
(add-to-list 'auto-mode-alist '("\\.dp\\'" . dp-mode))

(with-eval-after-load 'eglot
  (add-to-list 'eglot-server-programs '(dp-mode "dslc" "lsp")))

(provide 'dp-mode)
;;; dp-mode.el ends here
