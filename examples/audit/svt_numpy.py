"""The sparse vector technique of examples/svt.dp, written with NumPy.

    dslc audit examples/svt.dp --block svt --impl examples/audit/svt_numpy.py:svt

A noisy threshold Lap(ε/2) once, a fresh Lap(ε/4) for every query; True
(⊤) for the first query above the threshold, then stop; False (⊥) before.
"""


def svt(queries, rng, epsilon, threshold=0.0):
    noisy_threshold = threshold + rng.laplace(0.0, 2.0 / epsilon)
    answers = []
    for q in queries:
        if q + rng.laplace(0.0, 4.0 / epsilon) >= noisy_threshold:
            answers.append(True)
            break
        answers.append(False)
    return answers
