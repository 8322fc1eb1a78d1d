"""The `dslc.showGraph` command of the language server (workspace/executeCommand).

Arguments, either positional or one object::

    [uri, position]                  position {"line", "character"}: the block under it
    [uri, "blockName"]               the block of that name
    [uri, position-or-name, format]  format "mermaid" (default), "svg" or "dot"
    [{"uri": ..., "position": ... | "block": ..., "format": ..., "explain": true}]

The result is ``{"uri", "block", "kind", "format", "text"}``: the picture of
the block as ``dslc graph`` prints it.  The document's current check is used
(the one its diagnostics come from); a document that is not open is read
from disk.  Bad arguments get an InvalidParams error, a block that cannot be
drawn (errors, Graphviz missing for svg) a RequestFailed error.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlparse

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException, JsonRpcInternalError, JsonRpcInvalidParams

COMMAND = "dslc.showGraph"
FORMATS = ("mermaid", "svg", "dot")
REQUEST_FAILED = -32803
MAX_NODES = 2000          # larger pictures are left to `dslc graph`


class RequestFailed(JsonRpcException):
    CODE = REQUEST_FAILED


@dataclass
class GraphRequest:
    uri: str
    position: lsp.Position | None = None
    block: str | None = None
    format: str = "mermaid"
    explain: bool = False


def _invalid(message: str) -> JsonRpcInvalidParams:
    return JsonRpcInvalidParams(message=f"{COMMAND}: {message}")


def _position(value: Any) -> lsp.Position:
    if not isinstance(value, dict):
        raise _invalid("a position is an object {\"line\": N, \"character\": N}")
    line, char = value.get("line"), value.get("character")
    for name, v in (("line", line), ("character", char)):
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise _invalid(f"the position's `{name}` must be a non-negative integer, got {v!r}")
    return lsp.Position(line=line, character=char)


def parse_arguments(args: Any) -> GraphRequest:
    """The request in ``args`` (the command's arguments); InvalidParams if malformed."""
    args = list(args or [])
    if len(args) == 1 and isinstance(args[0], dict):
        obj = args[0]
        unknown = sorted(set(obj) - {"uri", "position", "block", "format", "explain"})
        if unknown:
            raise _invalid(f"unknown argument {unknown[0]!r}")
        uri, where, fmt, explain = obj.get("uri"), obj.get("position", obj.get("block")), \
            obj.get("format", "mermaid"), obj.get("explain", False)
        if "position" in obj and "block" in obj:
            raise _invalid("give a position or a block name, not both")
    else:
        if not 2 <= len(args) <= 3:
            raise _invalid("expected the arguments [uri, position or block name, format?]")
        uri, where = args[0], args[1]
        fmt = args[2] if len(args) == 3 else "mermaid"
        explain = False
    if not isinstance(uri, str) or not uri:
        raise _invalid("the first argument must be the document's URI")
    if fmt not in FORMATS:
        raise _invalid(f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    if not isinstance(explain, bool):
        raise _invalid("`explain` must be true or false")
    request = GraphRequest(uri, format=fmt, explain=explain)
    if isinstance(where, str):
        if not where:
            raise _invalid("the block name is empty")
        request.block = where
    elif where is None:
        raise _invalid("give the position of the cursor or the name of a block")
    else:
        request.position = _position(where)
    return request


def choose_block(analysis, request: GraphRequest):
    """The block the request names, or the one under its position."""
    result = analysis.result
    blocks = result.blocks if result is not None else []
    if request.block is not None:
        for b in blocks:
            if b.name == request.block:
                return b
        from dslc.diagnostics.suggest import did_you_mean
        close = did_you_mean(request.block, [b.name for b in blocks])
        hint = f"; {close}" if close else ""
        raise _invalid(f"no block named `{request.block}` in {request.uri}{hint}")
    block = analysis.block_at(analysis.encoder.offset(request.position))
    if block is None and len(blocks) == 1:
        block = blocks[0]
    if block is None:
        raise _invalid(f"no block at line {request.position.line + 1}; put the cursor inside a block "
                       "or give its name")
    return block


def graph_text(block, request: GraphRequest, path: str | None = None) -> dict:
    """The picture of ``block`` (runs in a worker thread: `dot -Tsvg` may take a while)."""
    from dslc.diagnostics.render.graph import GraphvizFailed, GraphvizMissing, render
    from dslc.graph import NotDrawable, block_graph

    try:
        graph = block_graph(block, explain=request.explain)
    except NotDrawable as exc:
        raise RequestFailed(message=f"{COMMAND}: {exc.message}") from None
    if graph.number_of_nodes() > MAX_NODES:
        raise RequestFailed(message=f"{COMMAND}: `{block.name}` has {graph.number_of_nodes()} nodes, too many "
                                    f"to show here; run `dslc graph FILE --block {block.name}`")
    try:
        text = render([graph], request.format, path)
    except GraphvizMissing as exc:
        raise RequestFailed(message=f"{COMMAND}: {exc} ({GraphvizMissing.help})") from None
    except GraphvizFailed as exc:
        raise RequestFailed(message=f"{COMMAND}: {exc}") from None
    return {"uri": request.uri, "block": block.name, "kind": block.kind, "format": request.format,
            "text": text}


def _analyse_from_disk(uri: str):
    from dslc.lsp.analysis import analyse
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        raise _invalid(f"{uri} is not open in the editor")
    path = unquote(parsed.path)
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise _invalid(f"{uri} is not open and cannot be read: {exc}") from None
    return analyse(uri, path, text, 0, None)


async def show_graph(ls, args: Any) -> dict:
    """The handler: find the block, then draw it off the event loop.  An
    unexpected error becomes one InternalError response, without traceback."""
    try:
        return await _show_graph(ls, args)
    except (JsonRpcException, asyncio.CancelledError):
        raise
    except Exception as exc:  # noqa: BLE001 - the server must survive any bug here
        raise JsonRpcInternalError(
            message=f"dslc: internal error in {COMMAND}: {type(exc).__name__}: {exc}") from None


async def _show_graph(ls, args: Any) -> dict:
    request = parse_arguments(args)
    analysis = None
    if ls.documents.get(request.uri) is not None:
        analysis = await ls.current(request.uri)
        if analysis is None:
            raise RequestFailed(message=f"{COMMAND}: the check of {request.uri} did not finish in time; "
                                        "try again")
    if analysis is None:
        analysis = await asyncio.wrap_future(ls.requests.submit(_analyse_from_disk, request.uri))
    if analysis.result is None:
        raise RequestFailed(message=f"{COMMAND}: {request.uri} could not be checked")
    block = choose_block(analysis, request)
    path = analysis.result.path
    return await asyncio.wrap_future(ls.requests.submit(graph_text, block, request, path))


__all__ = ["COMMAND", "FORMATS", "GraphRequest", "parse_arguments", "choose_block", "graph_text", "show_graph"]
