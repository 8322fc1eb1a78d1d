"""The sparse vector of Lee and Clifton (2014), as examples/lee_clifton.dp
models it: the threshold gets ε/4, every query 3ε/4, and it was published
as ε-private.  The implementation is faithful to its model, and the model
is not ε-private (d = 7/4):

    dslc audit examples/lee_clifton.dp --block lee_clifton --impl examples/audit/lee_clifton.py:svt
"""


def svt(queries, rng, epsilon, threshold=0.0):
    noisy_threshold = threshold + rng.laplace(0.0, 4.0 / epsilon)
    answers = []
    for q in queries:
        if q + rng.laplace(0.0, 4.0 / (3.0 * epsilon)) >= noisy_threshold:
            answers.append(True)
            break
        answers.append(False)
    return answers
