"""A sparse vector that draws a new noisy threshold for every query.

Each comparison then spends the threshold's budget again: after k queries
the privacy loss grows like k times a constant, past the ε that
examples/svt.dp proves:

    dslc audit examples/svt.dp --block svt --impl examples/audit/svt_redraw.py:svt
"""


def svt(queries, rng, epsilon, threshold=0.0):
    answers = []
    for q in queries:
        noisy_threshold = threshold + rng.laplace(0.0, 2.0 / epsilon)   # bug: drawn once in the model
        if q + rng.laplace(0.0, 4.0 / epsilon) >= noisy_threshold:
            answers.append(True)
            break
        answers.append(False)
    return answers
