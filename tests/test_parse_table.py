"""The parse table shipped in the package is the grammar's, and the parser
built from it reads every file exactly as the parser built from the text."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from dslc.kinds import START_RULES
from dslc.source import SourceFile
from dslc.syntax import parse_table
from dslc.syntax.parser import _transformers
from dslc.syntax.split import split_blocks

ROOT = Path(__file__).resolve().parent.parent
GRAMMAR = (ROOT / "grammar" / "dp.lark").read_text(encoding="utf-8")


def test_the_grammar_file_is_the_only_grammar():
    grammars = sorted(p.relative_to(ROOT).as_posix() for p in ROOT.rglob("*.lark")
                      if ".git" not in p.parts and "build" not in p.parts)
    assert grammars == ["grammar/dp.lark"]


def test_the_installed_table_is_made_from_the_grammar():
    table = parse_table._read_table()
    assert table is not None, "no parse table: run `python3 -m pip install -e .` to build it"
    assert table["grammar_sha256"] == parse_table.grammar_digest(GRAMMAR), (
        "grammar/dp.lark changed since the install: run `python3 -m pip install -e .` to rebuild the table")
    assert table["grammar"] == GRAMMAR


def test_every_kind_has_its_start_rule():
    assert set(START_RULES.values()) <= set(parse_table.start_rules(GRAMMAR))


def _builder():
    from lark import Transformer
    from dslc.syntax.parser import _Builder
    return type("Builder", tuple(_transformers()) + (_Builder, Transformer), {})()


def _trees(parser, builder) -> list:
    """repr of the AST of every block of every example (via the given parser)."""
    from dslc.syntax import recover
    out = []
    for path in sorted([*ROOT.glob("examples/*.dp"), *ROOT.glob("stdlib/*.dp"), *ROOT.glob("tests/golden/**/*.dp")]):
        try:
            source = SourceFile(str(path), path.read_text(encoding="utf-8"))
        except UnicodeDecodeError:
            continue
        builder.file, builder.base = source, 0
        for chunk in split_blocks(source)[0]:
            keyword = getattr(chunk, "keyword", None)
            if keyword not in START_RULES:
                continue
            builder.base = chunk.start
            try:
                block, diags = recover.parse(parser, source, chunk.start, chunk.end, keyword, START_RULES[keyword])
            except Exception as exc:          # a builder's diagnostic: compare its text
                out.append((str(path), keyword, type(exc).__name__, str(exc)))
                continue
            out.append((str(path), keyword, repr(block), [d.message for d in diags]))
    return out


def test_table_and_text_give_the_same_trees():
    builder = _builder()
    from_table = parse_table.load(transformer=builder)
    text_builder = _builder()
    from_text = parse_table.build(GRAMMAR, transformer=text_builder)
    trees = _trees(from_table, builder)
    assert len(trees) > 40
    assert trees == _trees(from_text, text_builder)


@pytest.mark.parametrize("damage", ["missing", "garbage", "wrong-hash", "fifo", "link-to-dev-zero", "huge"])
def test_a_damaged_table_falls_back_to_the_grammar(tmp_path, monkeypatch, damage):
    good = parse_table._read_table()
    target = tmp_path / "parse_table.json"
    if damage == "garbage":
        target.write_bytes(os.urandom(5000))
    elif damage == "wrong-hash":
        bad = dict(good, grammar_sha256="0" * 64)
        target.write_text(json.dumps(bad))
    elif damage == "fifo":
        os.mkfifo(target)
    elif damage == "link-to-dev-zero":
        target.symlink_to("/dev/zero")
    elif damage == "huge":
        with open(target, "wb") as fh:
            fh.truncate(parse_table.MAX_TABLE_BYTES + 1)
    monkeypatch.setattr(parse_table, "TABLE_FILE", target)
    assert parse_table._read_table() is None
    parser = parse_table.load()                         # from grammar/dp.lark beside the package
    assert parser.parse("automaton a { }", start="automaton_block") is not None


def test_a_stale_table_is_not_used(monkeypatch, tmp_path):
    """In a source checkout, a table older than grammar/dp.lark is ignored."""
    changed = GRAMMAR.replace("AUTOMATON.2: /automaton(?!", "AUTOMATON.2: /automatonx(?!")
    assert changed != GRAMMAR
    source = tmp_path / "dp.lark"
    source.write_text(changed, encoding="utf-8")
    monkeypatch.setattr(parse_table, "SOURCE_GRAMMAR", source)
    parser = parse_table.load()
    assert parser.parse("automatonx a { }", start="automaton_block") is not None


def test_no_grammar_anywhere_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setattr(parse_table, "TABLE_FILE", tmp_path / "absent.json")
    monkeypatch.setattr(parse_table, "SOURCE_GRAMMAR", tmp_path / "absent.lark")
    with pytest.raises(parse_table.TableError, match="reinstall"):
        parse_table.load()
