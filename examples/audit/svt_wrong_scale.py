"""A sparse vector with the query noise at the wrong scale: Lap(ε/2)
(scale 2/ε) where the model, examples/svt.dp, says Lap(ε/4) (scale 4/ε).
The proof of ε-privacy is about the mechanism with the larger scale; this
one is a different mechanism, and the audit says so:

    dslc audit examples/svt.dp --block svt --impl examples/audit/svt_wrong_scale.py:svt
"""


def svt(queries, rng, epsilon, threshold=0.0):
    noisy_threshold = threshold + rng.laplace(0.0, 2.0 / epsilon)
    answers = []
    for q in queries:
        if q + rng.laplace(0.0, 2.0 / epsilon) >= noisy_threshold:   # bug: should be 4/ε
            answers.append(True)
            break
        answers.append(False)
    return answers
