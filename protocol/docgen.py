"""Generates what is derived from the command table: the JSON schemas and SPEC.md's tables.

    python -m jacquetd_protocol.docgen           rewrite protocol/schema/*.json and SPEC.md's tables
    python -m jacquetd_protocol.docgen --check   exit 1 if any of them is stale (used by the tests)

SPEC.md marks each generated table with `<!-- generated: NAME -->` ...
`<!-- /generated -->`; everything else in SPEC.md is written by hand.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import fields as dataclass_fields
from pathlib import Path
from typing import Any

from .commands import (
    ALIASES,
    COMMANDS,
    MAX_ID,
    MAX_ID_LEN,
    PLANNED,
    RECORDS,
    RESULT_TYPES,
    WARNINGS,
    ArgType,
    Command,
    Field,
    Param,
)
from .errors import ERROR_DOCS, ErrorCode
from .messages import Limits
from .positions import CUBE_OWNERS, POSITION_TOKEN_RE, VARIANT_RE
from .version import PROTOCOL_VERSION

HERE = Path(__file__).parent
SCHEMA_DIR = HERE / "schema"
SPEC = HERE / "SPEC.md"
DRAFT = "https://json-schema.org/draft/2020-12/schema"

LIMIT_DOCS = {
    "max_frame_bytes": "bytes in one message: a msgpack object, or a text line without its "
    "newline",
    "max_depth": "nesting of maps and lists (the request map is depth 1)",
    "max_list_len": "elements in one list",
    "max_map_len": "entries in one map",
    "max_str_len": "bytes in one string",
    "max_elements": "values of any kind in one message",
    "max_inflight_per_client": "requests of one client accepted and not yet answered; more "
    "get `busy`",
}

# -- schemas ---------------------------------------------------------------------------------

_ID_SCHEMA = {"anyOf": [{"type": "null"},
                        {"type": "integer", "minimum": 0, "maximum": MAX_ID},
                        {"type": "string", "minLength": 1, "maxLength": MAX_ID_LEN}]}


def _side() -> dict[str, Any]:
    return {"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 15},
            "minItems": 26, "maxItems": 26}


def _position_schema(complete: bool) -> dict[str, Any]:
    required = ["variant", "on_roll", "opponent"] + (["dice", "primed"] if complete else [])
    nullable = ([] if complete else [{"type": "null"}])
    return {
        "type": "object", "required": required,
        "properties": {
            "variant": {"type": "string", "pattern": VARIANT_RE.pattern},
            "on_roll": _side(), "opponent": _side(),
            "dice": {"type": "array", "items": {"type": "integer", "minimum": 1, "maximum": 6},
                     "anyOf": [{"maxItems": 0}, {"minItems": 2, "maxItems": 2}]},
            "primed": {"type": "array", "items": {"type": "boolean"}, "minItems": 2,
                       "maxItems": 2},
            "cube": {"anyOf": [*nullable, {
                "type": "object", "required": ["value", "owner"],
                "properties": {"value": {"type": "integer", "minimum": 1},
                               "owner": {"enum": list(CUBE_OWNERS)},
                               "pending": {"type": "boolean"}}}]},
            "match": {"anyOf": [*nullable, {
                "type": "object", "required": ["length", "score"],
                "properties": {"length": {"type": "integer", "minimum": 1},
                               "score": {"type": "array", "minItems": 2, "maxItems": 2,
                                         "items": {"type": "integer", "minimum": 0}},
                               "crawford": {"type": "boolean"}}}]},
        },
    }


def _param_schema(p: Param) -> dict[str, Any]:
    t = p.type
    s: dict[str, Any]
    if t is ArgType.INT:
        s = {"type": "integer"}
    elif t is ArgType.NUMBER:
        s = {"type": "number"}
    elif t is ArgType.BOOL:
        s = {"type": "boolean"}
    elif t is ArgType.WORD:
        s = {"type": "string", "minLength": 1, "maxLength": p.max_len}
    elif t is ArgType.WORDS:
        item: dict[str, Any] = {"type": "string", "minLength": 1}
        if p.pattern:
            item["pattern"] = p.pattern
        s = {"type": "array", "items": item, "minItems": 1, "maxItems": p.max_len}
    elif t is ArgType.DICE:
        s = {"type": "array", "items": {"type": "integer", "minimum": 1, "maximum": 6},
             "minItems": 2, "maxItems": 2}
    elif t is ArgType.POSITION:
        s = {"$ref": "#/$defs/position_arg"}
    elif t is ArgType.MOVE:
        s = {"type": "string", "maxLength": p.max_len}
    else:
        s = {"anyOf": [{"type": "integer", "minimum": 0, "maximum": MAX_ID},
                       {"type": "string", "minLength": 1, "maxLength": MAX_ID_LEN}]}
    if p.minimum is not None:
        s["minimum"] = p.minimum
    if p.maximum is not None:
        s["maximum"] = p.maximum
    if p.pattern and t is ArgType.WORD:
        s["pattern"] = p.pattern
    s["description"] = p.doc
    if not p.required:
        s = {"anyOf": [s, {"type": "null"}]}
    return s


def _other_spellings(cmd: Command, names: set[str]) -> dict[str, Any]:
    """Fields the codec refuses as other spellings of `cmd`'s fields (commands.py's
    `check_spellings`), where the schema can name them: only nil is allowed."""
    out: dict[str, Any] = {}
    if "position" in names and "variant" not in names:
        out["variant"] = {"type": "null", "description": "refused: the variant is part of "
                          "the position (`start:VARIANT`)"}
    for alias, right in ALIASES.items():
        if right in names and alias not in names:
            out[alias] = {"type": "null", "description": f"refused: spelled `{right}`"}
    return out


def request_schema() -> dict[str, Any]:
    """JSON Schema of a request map (msgpack, shown as JSON)."""
    defs: dict[str, Any] = {
        "id": _ID_SCHEMA,
        "position_arg": {"anyOf": [{"type": "string", "pattern": POSITION_TOKEN_RE.pattern},
                                   {"$ref": "#/$defs/position"}]},
        "position": _position_schema(complete=False),
    }
    for cmd in COMMANDS.values():
        props: dict[str, Any] = {"id": {"$ref": "#/$defs/id"}, "cmd": {"const": cmd.name}}
        props |= {p.name: _param_schema(p) for p in cmd.all_params()}
        props |= _other_spellings(cmd, set(props))
        defs[f"request_{cmd.name}"] = {
            "type": "object", "description": cmd.summary,
            "required": ["cmd"] + [p.name for p in cmd.all_params() if p.required],
            "properties": props,
        }
    return {"$schema": DRAFT, "title": f"jacquetd protocol {PROTOCOL_VERSION}: a request "
            "(msgpack map, shown as JSON); unknown fields are allowed and ignored",
            "oneOf": [{"$ref": f"#/$defs/request_{name}"} for name in COMMANDS], "$defs": defs}


def _record_schema(fields: tuple[Field, ...], doc: str) -> dict[str, Any]:
    props = {}
    for f in fields:
        props[f.name] = dict(RESULT_TYPES[f.type][1]) | {"description": f.doc}
    return {"type": "object", "description": doc, "properties": props,
            "required": [f.name for f in fields if f.required]}


def reply_schema() -> dict[str, Any]:
    """JSON Schema of a reply or partial map; `#/$defs/result_CMD` is each command's result."""
    defs: dict[str, Any] = {
        "id": _ID_SCHEMA,
        "position": _position_schema(complete=True),
        "error": {
            "type": "object", "required": ["code", "message"],
            "properties": {
                "code": {"enum": [str(c) for c in ErrorCode]},
                "message": {"type": "string"},
                "field": {"type": "string"},
                "rule": {"type": "string"},
                "limit": {"type": "string"},
                "supported": {"type": "array", "items": {"type": "string"}},
                "planned": {"type": "boolean"},
                "candidates": {"type": "array", "items": {"type": "string"}},
                "usage": {"type": "string"},
                "spelling": {"type": "string"},
                "warnings": dict(RESULT_TYPES[WARNINGS.type][1]) | {"description": WARNINGS.doc},
            },
        },
        "ok_reply": {"type": "object", "required": ["id", "ok", "result"],
                     "properties": {"id": {"$ref": "#/$defs/id"}, "ok": {"const": True},
                                    "result": {"type": "object"}}},
        "error_reply": {"type": "object", "required": ["id", "ok", "error"],
                        "properties": {"id": {"$ref": "#/$defs/id"}, "ok": {"const": False},
                                       "error": {"$ref": "#/$defs/error"}}},
        "partial": {"type": "object", "required": ["id", "partial", "result"],
                    "properties": {"id": {"$ref": "#/$defs/id"}, "partial": {"const": True},
                                   "result": {"type": "object"}}},
    }
    for name, record in RECORDS.items():
        defs[name] = _record_schema(record, f"a {name.replace('_', ' ')}")
    for cmd in COMMANDS.values():
        defs[f"result_{cmd.name}"] = _record_schema((*cmd.result, WARNINGS),
                                                    f"result of {cmd.name}")
    return {"$schema": DRAFT, "title": f"jacquetd protocol {PROTOCOL_VERSION}: a reply or a "
            "partial (msgpack map, shown as JSON); unknown fields are allowed and ignored",
            "oneOf": [{"$ref": "#/$defs/ok_reply"}, {"$ref": "#/$defs/error_reply"},
                      {"$ref": "#/$defs/partial"}], "$defs": defs}


def schema_files() -> dict[Path, str]:
    """The schema files, as text."""
    def dump(obj: dict[str, Any]) -> str:
        return json.dumps(obj, indent=1, sort_keys=False) + "\n"
    return {SCHEMA_DIR / "request.json": dump(request_schema()),
            SCHEMA_DIR / "reply.json": dump(reply_schema())}


# -- TypedDicts of the results (results.py) --------------------------------------------------

#: Field type name -> its Python type in results.py (a key of RESULT_TYPES each).
PY_TYPES: dict[str, str] = {
    "int": "int", "number": "float", "prob": "float", "bool": "bool", "str": "str",
    "str_list": "list[str]", "position": "dict[str, Any]", "play": "Play",
    "plays": "list[Play]", "plays_or_compact": "list[Play | CompactPlay]",
    "ranked_plays": "list[RankedPlay]", "limits": "dict[str, int]",
    "latency": "dict[str, Latency]", "counts": "dict[str, int]",
    "request_id": "int | str", "game_result": "GameResult",
    "move_analyses": "list[dict[str, Any]]", "game_lucks": "list[dict[str, Any]]",
    "thresholds": "dict[str, float]", "player_summaries": "list[dict[str, Any]]",
    "cube_analyses": "list[dict[str, Any]]",
    "bot_matches": "list[dict[str, Any]]", "rollout_lines": "list[dict[str, Any]]",
    "warnings": "list[FieldWarning]", "int_or_null": "int | None", "int_pair": "list[int]",
    "int_list": "list[int]", "token_pair": "list[str | None]", "may": "list[list[str]]",
    "seats": "list[dict[str, Any]]", "events": "list[dict[str, Any]]",
    "cube_or_null": "dict[str, Any] | None", "resign_or_null": "dict[str, Any] | None",
    "match_summaries": "list[dict[str, Any]]", "str_map": "dict[str, str]",
    "help_arguments": "list[dict[str, Any]]", "request_map": "dict[str, Any]",
    "variant_rules": "dict[str, dict[str, Any]]",
}


def _camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))


def _typed_dict(name: str, fields: tuple[Field, ...], doc: str) -> str:
    lines = [f"class {name}(TypedDict):", f'    """{doc}"""', ""]
    for f in fields:
        py = PY_TYPES[f.type]
        lines.append(f"    {f.name}: {py if f.required else f'NotRequired[{py}]'}")
    return "\n".join(lines) + "\n"


def results_module() -> str:
    """results.py: one TypedDict per result record and per command's result, from the
    command table (as the JSON schemas are)."""
    head = ('"""TypedDicts of every result map, generated from the command table by\n'
            "`python -m jacquetd_protocol.docgen` (do not edit by hand): `RESULTS` maps each\n"
            "command to the TypedDict of its result; `Play`, `CompactPlay`, `RankedPlay` and\n"
            "`Latency` are the records inside results. Fields a newer server adds are not listed.\n"
            '"""\n\n'
            "# No `from __future__ import annotations`: TypedDict reads NotRequired[...] at\n"
            "# run time (its __required_keys__), which stringized annotations would hide.\n"
            "from typing import Any, NotRequired, TypedDict\n")
    blocks = [
        _typed_dict("GameResult", (Field("winner", "str", ""), Field("points", "int", ""),
                                   Field("name", "str", "")),
                    "The result of a game a play ends."),
        _typed_dict("FieldWarning", (Field("field", "str", ""), Field("message", "str", "")),
                    "A request field the command does not define, ignored."),
        *[_typed_dict(_camel(name), record, f"A {name.replace('_', ' ')}.")
          for name, record in RECORDS.items()],
        *[_typed_dict(f"{_camel(cmd.name)}Result", (*cmd.result, WARNINGS),
                      f"The result of `{cmd.name}`.") for cmd in COMMANDS.values()],
        "RESULTS: dict[str, type] = {\n"
        + "".join(f'    "{c}": {_camel(c)}Result,\n' for c in COMMANDS) + "}\n",
    ]
    return head + "".join("\n\n" + block for block in blocks)


# -- SPEC.md tables --------------------------------------------------------------------------

_TYPE_LABELS = {
    ArgType.INT: "int", ArgType.NUMBER: "float", ArgType.BOOL: "bool", ArgType.WORD: "str",
    ArgType.WORDS: "list of str", ArgType.DICE: "dice", ArgType.POSITION: "position",
    ArgType.MOVE: "str (move)", ArgType.REQUEST_ID: "int or str",
}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _param_row(p: Param) -> str:
    rng = []
    if p.minimum is not None or p.maximum is not None:
        rng.append(f"{p.minimum if p.minimum is not None else ''}.."
                   f"{p.maximum if p.maximum is not None else ''}")
    if p.type in (ArgType.WORD, ArgType.MOVE):
        rng.append(f"≤ {p.max_len} chars")
    if p.type is ArgType.WORDS:
        rng.append(f"≤ {p.max_len} entries")
    default = "" if p.default is None else json.dumps(p.default)
    where = "—" if p.position is None else ("rest of line" if p.type is ArgType.MOVE
                                            else str(p.position + 1))
    need = "required" if p.required else "optional"
    return (f"| `{p.name}` | {_TYPE_LABELS[p.type]} | {need} | {default} | {', '.join(rng)} | "
            f"{where} | {_cell(p.doc)} |")


def params_table(cmd: Command) -> str:
    """The arguments of a command, as a Markdown table."""
    head = ("| field | type | required | default | range | text word | meaning |\n"
            "|---|---|---|---|---|---|---|")
    return "\n".join([head, *(_param_row(p) for p in cmd.all_params())])


def fields_table(fields: tuple[Field, ...]) -> str:
    """Result fields as a Markdown table."""
    if not fields:
        return "The result is an empty map."
    head = "| field | type | meaning |\n|---|---|---|"
    rows = [f"| `{f.name}` | {RESULT_TYPES[f.type][0]} | {_cell(f.doc)} |" for f in fields]
    return "\n".join([head, *rows])


def commands_table() -> str:
    """The command index."""
    rows = ["| command | streams | what it does |", "|---|---|---|"]
    rows += [f"| [`{c.name}`](#{c.name}) | {'yes' if c.streams else ''} | {_cell(c.summary)} |"
             for c in COMMANDS.values()]
    if PLANNED:
        rows.append(f"| {', '.join(f'`{n}`' for n in PLANNED)} | | planned: reserved names, "
                    "answered `unknown_command` with `planned: true` |")
    return "\n".join(rows)


def errors_table() -> str:
    """The error codes."""
    rows = ["| code | when |", "|---|---|"]
    rows += [f"| `{code}` | {_cell(ERROR_DOCS[code])} |" for code in ErrorCode]
    return "\n".join(rows)


def limits_table() -> str:
    """The limits and their defaults."""
    rows = ["| limit | default | what it bounds |", "|---|---|---|"]
    defaults = Limits()
    for f in dataclass_fields(Limits):
        rows.append(f"| `{f.name}` | {getattr(defaults, f.name)} | {LIMIT_DOCS[f.name]} |")
    return "\n".join(rows)


def spec_blocks() -> dict[str, str]:
    """Every generated block of SPEC.md, by name."""
    blocks = {"commands": commands_table(), "errors": errors_table(),
              "limits": limits_table()}
    for name, record in RECORDS.items():
        blocks[f"record {name}"] = fields_table(record)
    for cmd in COMMANDS.values():
        blocks[f"params {cmd.name}"] = params_table(cmd)
        blocks[f"result {cmd.name}"] = fields_table(cmd.result)
    return blocks


_BLOCK_RE = re.compile(r"(<!-- generated: ([^>]+?) -->\n)(.*?)(<!-- /generated -->)", re.S)


def render_spec(text: str) -> str:
    """SPEC.md with every generated block brought up to date; KeyError for unknown names."""
    blocks = spec_blocks()
    return _BLOCK_RE.sub(lambda m: m[1] + blocks[m[2]] + "\n" + m[4], text)


def main(argv: list[str] | None = None) -> int:
    """Write (or with --check, verify) the schema files and SPEC.md's tables."""
    parser = argparse.ArgumentParser(prog="python -m jacquetd_protocol.docgen", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="only report stale files")
    args = parser.parse_args(argv)
    wanted = schema_files()
    wanted[HERE / "results.py"] = results_module()
    wanted[SPEC] = render_spec(SPEC.read_text())
    stale = [path for path, text in wanted.items()
             if not path.exists() or path.read_text() != text]
    if args.check:
        for path in stale:
            print(f"stale: {path.relative_to(HERE.parent)} "
                  "(run python -m jacquetd_protocol.docgen)")
        return 1 if stale else 0
    for path in stale:
        path.write_text(wanted[path])
        print(f"wrote {path.relative_to(HERE.parent)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
