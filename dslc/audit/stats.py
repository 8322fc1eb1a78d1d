"""The statistics of an audit (SciPy does the distributions).

- :func:`g_test`: observed counts of output sequences against the model's
  exact probabilities, by the G-test (likelihood-ratio form of Pearson's
  test, ``scipy.stats.power_divergence``); sequences whose expected count is
  below :data:`MIN_EXPECTED` are pooled into one bin, so the χ²
  approximation holds.  A sequence the model gives probability 0 and the
  implementation produced is an exact rejection (p = 0).
- :func:`two_sample`: real values against the model sampler's
  (``scipy.stats.ks_2samp``).
- :func:`clopper_pearson`: exact one-sided binomial bounds
  (``scipy.stats.beta.ppf``).
- :func:`holm`: Holm's step-down correction of a family of p-values.
"""

from __future__ import annotations

import math

MIN_EXPECTED = 5.0
MIN_REALS = 20


def g_test(counts: dict, probs: dict, rest: float, n: int) -> tuple[float, float, int]:
    """(p-value, G statistic, degrees of freedom)."""
    from scipy.stats import power_divergence

    obs, exp = [], []
    pool_o, pool_e = 0, rest * n
    for key, p in probs.items():
        o = counts.get(key, 0)
        e = p * n
        if e < MIN_EXPECTED:
            pool_o += o
            pool_e += e
        else:
            obs.append(o)
            exp.append(e)
    unknown = sum(c for k, c in counts.items() if k not in probs)
    if unknown and rest <= 1e-12:
        return 0.0, math.inf, len(obs)       # an output sequence the model never makes
    pool_o += unknown
    if pool_o or pool_e:
        obs.append(pool_o)
        exp.append(pool_e)
    if len(obs) < 2:
        return 1.0, 0.0, 0
    total = sum(exp)
    exp = [e * n / total for e in exp]       # the rounding of the exact probabilities
    if any(e <= 0 for e in exp):
        return (0.0, math.inf, len(obs) - 1) if any(o and e <= 0 for o, e in zip(obs, exp)) else (1.0, 0.0, 0)
    stat, p = power_divergence(obs, exp, lambda_="log-likelihood")
    return float(p), float(stat), len(obs) - 1


def two_sample(values: list[float], reference: list[float]) -> float | None:
    """Two-sample Kolmogorov–Smirnov p-value, None when either side is too small."""
    if len(values) < MIN_REALS or len(reference) < MIN_REALS:
        return None
    from scipy.stats import ks_2samp
    return float(ks_2samp(values, reference).pvalue)


def clopper_pearson(k: int, n: int, alpha: float) -> tuple[float, float]:
    """One-sided exact bounds: Pr[p ≥ lower] ≥ 1 − alpha and Pr[p ≤ upper] ≥ 1 − alpha."""
    from scipy.stats import beta
    lower = 0.0 if k == 0 else float(beta.ppf(alpha, k, n - k + 1))
    upper = 1.0 if k == n else float(beta.ppf(1 - alpha, k + 1, n - k))
    return lower, upper


def holm(pvalues: list[float], alpha: float) -> list[float]:
    """Holm-adjusted p-values (reject where adjusted ≤ alpha)."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [1.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        adjusted[i] = running
    return adjusted


def epsilon_lower(k_alpha: int, k_beta: int, n_alpha: int, n_beta: int, alpha: float,
                  epsilon: float) -> float:
    """ln(lower_α / upper_β) / ε from Clopper–Pearson bounds at ``alpha`` each
    (so at confidence 1 − 2·alpha); 0 when it is not positive."""
    lo, _ = clopper_pearson(k_alpha, n_alpha, alpha)
    _, hi = clopper_pearson(k_beta, n_beta, alpha)
    if lo <= 0 or hi <= 0:
        return 0.0
    return max(0.0, math.log(lo / hi) / epsilon)
