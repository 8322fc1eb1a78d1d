"""Generators of large DiP automata for the benchmarks (as IR or as `.dp` text)."""

from __future__ import annotations

import random
from fractions import Fraction

from dslc.ir.dipa import DiPA, Guard, State, Transition, symbol, OUT_INSAMPLE_PRIME

TOP, BOT = symbol("⊤"), symbol("⊥")
# Shared rate objects, as the lowering shares equal rates between states.
Q14, Q12, Q1, Q29, Q19, Q0 = (Fraction(1, 4), Fraction(1, 2), Fraction(1), Fraction(2, 9),
                              Fraction(1, 9), Fraction(0))


def svt_chain(n_states: int) -> DiPA:
    """SVT gadgets in a row: store a threshold, loop on `<`, leave on `>=` to the next
    gadget (SVT with n/2 restarts).  Well-formed, d = n/2 · (1/2 + 2·1/4)."""
    dipa = DiPA("svt_chain")
    gadgets = max(1, n_states // 2)
    for g in range(gadgets):
        dipa.add_state(State(f"t{g}", False, Q12, Q0, Q0, Q0))
        dipa.add_state(State(f"l{g}", True, Q14, Q0, Q0, Q0))
    dipa.add_state(State("end", True, Q14, Q0, Q0, Q0))
    for g in range(gadgets):
        t, loop, nxt = 2 * g, 2 * g + 1, 2 * g + 2
        dipa.add_transition(Transition(t, Guard.TRUE, loop, BOT, True))
        dipa.add_transition(Transition(loop, Guard.LT, loop, BOT, False))
        dipa.add_transition(Transition(loop, Guard.GE, nxt, TOP, False))
    return dipa


def sorted_chain(n_states: int) -> DiPA:
    """Like svt_chain but every loop stores its draw: one leaking cycle per gadget."""
    dipa = svt_chain(n_states)
    for t in dipa.transitions:
        if t.guard is Guard.LT:
            t.store = True
    dipa.name = "sorted_chain"
    return dipa


def random_well_formed(n_states: int, seed: int = 0) -> DiPA:
    """A random forward DAG (random guards, stores, outputs) with `<` self-loops that output
    symbols and never store: no leaking or disclosing cycle, no G-cycle, no insample output."""
    rng = random.Random(seed)
    dipa = DiPA("random_wf")
    rates = [Q14, Q12, Q1, Q29]
    for i in range(n_states):
        dipa.add_state(State(f"s{i}", i > 0 and rng.random() < 0.8, rng.choice(rates), Q0, Q19, Q0))
    for i in range(n_states - 1):
        s = dipa.states[i]
        fwd = lambda: rng.randint(i + 1, min(n_states - 1, i + 20))  # noqa: E731
        if i == 0 or not s.is_input:
            dipa.add_transition(Transition(i, Guard.TRUE, fwd(), BOT, i == 0 or rng.random() < 0.3))
        elif rng.random() < 0.5:
            dipa.add_transition(Transition(i, Guard.LT, i, BOT, False))
            dipa.add_transition(Transition(i, Guard.GE, fwd(), rng.choice([TOP, OUT_INSAMPLE_PRIME]),
                                           rng.random() < 0.3))
        else:
            dipa.add_transition(Transition(i, Guard.LT, fwd(), BOT, rng.random() < 0.3))
            dipa.add_transition(Transition(i, Guard.GE, fwd(), TOP, rng.random() < 0.3))
    return dipa


def random_ill_formed(n_states: int, seed: int = 0) -> DiPA:
    """Random targets anywhere: large strongly connected parts, stores, real outputs."""
    rng = random.Random(seed)
    dipa = DiPA("random_if")
    for i in range(n_states):
        dipa.add_state(State(f"s{i}", i > 0, Q14, Q0, Q19, Q0))
    outs = [TOP, BOT, symbol("a"), OUT_INSAMPLE_PRIME]
    for i in range(n_states):
        tgt = lambda: rng.randrange(n_states)  # noqa: E731
        if i == 0:
            dipa.add_transition(Transition(0, Guard.TRUE, tgt(), BOT, True))
            continue
        o1 = rng.choice(outs)
        o2 = rng.choice([o for o in outs if o != o1 and not (o.is_real and o1.is_real)])
        dipa.add_transition(Transition(i, Guard.GE, tgt(), o1, rng.random() < 0.1))
        dipa.add_transition(Transition(i, Guard.LT, tgt(), o2, rng.random() < 0.1))
    return dipa


def to_text(dipa: DiPA) -> str:
    """The automaton as a `.dp` block."""
    from dslc.ir.print_dipa import automaton_text
    return automaton_text(dipa, indent="  ")


def write_text(generator: str, n_states: int, path, seed: int = 0) -> None:
    """Write ``to_text(generator(n_states))`` to ``path`` without building the
    IR: the same random draws in the same order, one state at a time (10^7
    states need seconds and a few megabytes instead of a 5 GB object graph).
    ``benchmarks/bench_dipa.py`` and its smoke test check that both agree."""
    import io
    out = io.open(path, "w", encoding="utf-8", newline="\n")
    write = out.write
    rng = random.Random(seed)
    rate_text = {Q14: "ε/4", Q12: "ε/2", Q1: "ε", Q29: "2ε/9"}
    if generator == "svt_chain":
        write("automaton svt_chain {\n")
        gadgets = max(1, n_states // 2)
        for g in range(gadgets):
            nxt = f"t{g + 1}" if g + 1 < gadgets else "end"
            write(f"  state t{g} noinput Lap(ε/2, 0) {{ true -> l{g} output ⊥ store }}\n"
                  f"  state l{g} input Lap(ε/4, 0) {{ insample < x -> l{g} output ⊥; "
                  f"insample >= x -> {nxt} output ⊤ }}\n")
        write("  state end input Lap(ε/4, 0) {  }\n")
    elif generator == "random_well_formed":
        write("automaton random_wf {\n")
        rates = [Q14, Q12, Q1, Q29]
        inputs = bytearray(n_states)
        rate = bytearray(n_states)
        for i in range(n_states):
            inputs[i] = i > 0 and rng.random() < 0.8
            rate[i] = rates.index(rng.choice(rates))
        for i in range(n_states):
            head = (f"  state s{i} {'input' if inputs[i] else 'noinput'} Lap({rate_text[rates[rate[i]]]}, 0), "
                    f"Lap'(ε/9, 0) {{ ")
            if i == n_states - 1:
                write(head + " }\n")
                continue
            hi = min(n_states - 1, i + 20)
            if i == 0 or not inputs[i]:
                t = rng.randint(i + 1, hi)
                store = i == 0 or rng.random() < 0.3
                body = f"true -> s{t} output ⊥{' store' if store else ''}"
            elif rng.random() < 0.5:
                t = rng.randint(i + 1, hi)
                o = rng.choice(["⊤", "insample'"])
                store = rng.random() < 0.3
                body = f"insample < x -> s{i} output ⊥; insample >= x -> s{t} output {o}{' store' if store else ''}"
            else:
                t1 = rng.randint(i + 1, hi)
                s1 = rng.random() < 0.3
                t2 = rng.randint(i + 1, hi)
                s2 = rng.random() < 0.3
                body = (f"insample < x -> s{t1} output ⊥{' store' if s1 else ''}; "
                        f"insample >= x -> s{t2} output ⊤{' store' if s2 else ''}")
            write(head + body + " }\n")
    elif generator == "random_ill_formed":
        write("automaton random_if {\n")
        outs = ["⊤", "⊥", "a", "insample'"]
        real = {"insample'"}
        for i in range(n_states):
            head = f"  state s{i} {'input' if i > 0 else 'noinput'} Lap(ε/4, 0), Lap'(ε/9, 0) {{ "
            if i == 0:
                write(head + f"true -> s{rng.randrange(n_states)} output ⊥ store }}\n")
                continue
            o1 = rng.choice(outs)
            o2 = rng.choice([o for o in outs if o != o1 and not (o in real and o1 in real)])
            t1 = rng.randrange(n_states)
            s1 = rng.random() < 0.1
            t2 = rng.randrange(n_states)
            s2 = rng.random() < 0.1
            write(head + f"insample >= x -> s{t1} output {o1}{' store' if s1 else ''}; "
                  f"insample < x -> s{t2} output {o2}{' store' if s2 else ''} }}\n")
    else:
        raise ValueError(f"no streaming writer for {generator}")
    write("}\n")
    out.close()
