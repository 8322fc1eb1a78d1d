"""Random small HMMs and MDPs: the SMT check (both encodings) and the
enumeration baseline agree with a literal brute-force implementation of the
semantics (sum over hidden state paths, every observation sequence)."""

from __future__ import annotations

from fractions import Fraction as F

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dslc.ir.hmm import Poly
from dslc.bounded.check import check_model, enumerate_model, explore_model
from tests.test_bounded import literal_private, load_model


def _row(draw, n: int, allow_zero: bool = True) -> list[F]:
    weights = draw(st.lists(st.integers(0 if allow_zero else 1, 4), min_size=n, max_size=n))
    if sum(weights) == 0:
        weights[draw(st.integers(0, n - 1))] = 1
    total = sum(weights)
    return [F(w, total) for w in weights]


def _fmt_row(names: list[str], probs: list[F]) -> str:
    return ", ".join(f"{nm}: {p}" for nm, p in zip(names, probs) if p)


@st.composite
def models(draw):
    n = draw(st.integers(2, 3))
    m = draw(st.integers(2, 3))
    n_act = draw(st.integers(1, 2))
    k = draw(st.integers(1, 3))
    states = [f"s{i}" for i in range(n)]
    obs = [f"o{i}" for i in range(m)]
    kind = "mdp" if n_act > 1 else "hmm"
    lines = [f"{kind} r {{", f"states {', '.join(states)}", f"observations {', '.join(obs)}"]
    if n_act > 1:
        lines.append("actions A, B")
    prior = _row(draw, n, allow_zero=False)
    lines.append("prior " + _fmt_row(states, prior))
    for s in states:
        if n_act > 1:
            for a in ("A", "B"):
                lines.append(f"{s} on {a} -> " + _fmt_row(states, _row(draw, n)))
        else:
            lines.append(f"{s} -> " + _fmt_row(states, _row(draw, n)))
        lines.append(f"{s} emits " + _fmt_row(obs, _row(draw, m)))
    split = draw(st.integers(1, n - 1))
    lines.append(f"secret left = {{{', '.join(states[:split])}}}")
    right = states[split:] if draw(st.booleans()) else states[split - 1:]   # disjoint or overlapping
    lines.append(f"secret right = {{{', '.join(right)}}}")
    lines.append("protect left, right")
    eps = draw(st.sampled_from(["ln 1", "ln(3/2)", "ln 2", "ln 3", "ln 5", "1/2", "1", "0"]))
    lines.append(f"check ε = {eps}, k = {k}")
    lines.append("}")
    return "\n".join(lines)


SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(models())
def test_smt_agrees_with_literal_semantics(text):
    model = load_model(text)
    expected = literal_private(model)
    improved = check_model(model, 30, style="improved")
    plain = check_model(model, 30, style="plain")
    assert improved.verdict == ("private" if expected else "violation"), text
    assert plain.verdict == improved.verdict, text
    enum, _count, complete = enumerate_model(model)
    assert complete and (enum is None) == expected
    pruned, _count, _ = enumerate_model(model, prune=True)
    assert (pruned is None) == expected
    explored, _width, complete = explore_model(model)
    assert complete and (explored is None) == expected


@settings(max_examples=25, deadline=None)
@given(models(), st.sampled_from([F(1, 5), F(1, 3), F(1, 2), F(2, 3), F(4, 5)]))
def test_symbolic_parameter_agrees_with_substitution(text, value):
    """Making one emission symbolic (p, 1 - p) and fixing p = value gives the same
    verdict as writing value into the model."""
    lines = text.splitlines()
    idx = next(i for i, line in enumerate(lines) if " emits " in line)
    state = lines[idx].split()[0]
    lines[idx] = f"{state} emits o0: p, o1: 1 - p"
    numeric = "\n".join(lines[:2] + [f"param p = {value}"] + lines[2:])
    symbolic_fixed = load_model(numeric)
    assert all(pl.is_const for pl in symbolic_fixed.all_polys())
    expected = literal_private(symbolic_fixed)
    model = load_model("\n".join(lines[:2] + ["param p in (0, 1)"] + lines[2:]))
    out = check_model(model, 30, env={"p": value})
    assert out.verdict == ("private" if expected else "violation")


@given(st.dictionaries(st.sampled_from("pqr"), st.fractions(max_denominator=7), min_size=3, max_size=3),
       st.lists(st.tuples(st.fractions(max_denominator=5), st.lists(st.sampled_from("pqr"), max_size=3)),
                min_size=1, max_size=4),
       st.lists(st.tuples(st.fractions(max_denominator=5), st.lists(st.sampled_from("pqr"), max_size=3)),
                min_size=1, max_size=4))
def test_poly_arithmetic(env, a_terms, b_terms):
    def build(terms):
        out = Poly.const(0)
        for coeff, names in terms:
            term = Poly.const(coeff)
            for nm in names:
                term = term * Poly.var(nm)
            out = out + term
        return out

    def value(terms):
        total = F(0)
        for coeff, names in terms:
            v = coeff
            for nm in names:
                v *= env[nm]
            total += v
        return total

    a, b = build(a_terms), build(b_terms)
    assert (a * b).evaluate(env) == value(a_terms) * value(b_terms)
    assert (a - b).evaluate(env) == value(a_terms) - value(b_terms)
    assert a.substitute({"p": env["p"]}).evaluate(env) == a.evaluate(env)
