"""The schema of a table export (``GET /api/tables/{code}/export``), checked whole before an import
replays a single entry: the right types everywhere, bounded counts and texts, entries numbered
1, 2, 3... with known types, undo entries pointing back at an earlier entry.

The game says what its tables are made of: the model of a table's settings, every seat a table
of that game can have, and which of them sit at a given table (``parse_export``'s ``config``,
``seat_ids`` and ``seats``). This module knows no game.
"""
from functools import lru_cache
from typing import Annotated, Callable, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, model_validator

from .entries import no_controls

EXPORT_FORMAT = "dune-table-companion/1"
MAX_IMPORT_EVENTS = 50_000
@lru_cache(maxsize=None)
def export_schema(config_model: type[BaseModel], seat_ids: tuple[str, ...],
                  seats: Callable[[BaseModel], list[str]]) -> type[BaseModel]:
    """The model of one game's exports. ``config_model``: the model of its table settings; ``seat_ids``:
    every seat a table of the game can have; ``seats(checked config)``: the seats at that table
    (it may raise ``ValueError`` saying what is wrong with them)."""
    Seat = Literal[("host", *seat_ids)]
    Role = Literal[tuple(seat_ids)]

    class ExportEvent(BaseModel):
        model_config = ConfigDict(extra="forbid", strict=True)

        seq: int = Field(ge=1)
        seat: Seat
        type: Annotated[str, Field(min_length=1, max_length=40), AfterValidator(no_controls)]
        payload: dict
        ts: float = Field(ge=0, le=10**11, allow_inf_nan=False)  # seconds since 1970
        secret_for: Role | None = None
        summary: Annotated[str, Field(max_length=1000)] = ""

    class ExportFile(BaseModel):
        model_config = ConfigDict(extra="forbid", strict=True)

        format: Literal[EXPORT_FORMAT]
        table: Annotated[str, Field(max_length=10)] | None = None
        config: config_model
        events: list[ExportEvent] = Field(max_length=MAX_IMPORT_EVENTS)

        @model_validator(mode="after")
        def _consistent(self):
            at_table = list(seats(self.config))
            present = set(at_table)
            if len(present) != len(at_table):
                raise ValueError("config: each seat at most once")
            for i, e in enumerate(self.events):
                where = f"events.{i}"
                if e.seq != i + 1:
                    raise ValueError(f"{where}.seq: the entries are numbered 1, 2, 3, ... (found {e.seq})")
                if e.seat != "host" and e.seat not in present:
                    raise ValueError(f"{where}.seat: {e.seat} is not at this table")
                if e.secret_for is not None and e.secret_for not in present:
                    raise ValueError(f"{where}.secret_for: {e.secret_for} is not at this table")
                if e.type == "undo":
                    target = e.payload.get("target")
                    if (not isinstance(target, int) or isinstance(target, bool) or not 1 <= target < e.seq
                            or self.events[target - 1].type == "undo"):
                        raise ValueError(f"{where}.payload.target: an undo names an earlier entry that is not an undo")
                if e.type == "amend":
                    target, entry = e.payload.get("target"), e.payload.get("entry", False)
                    if (not isinstance(target, int) or isinstance(target, bool) or not 1 <= target < e.seq
                            or self.events[target - 1].type in ("undo", "amend")):
                        raise ValueError(f"{where}.payload.target: an amendment names an earlier entry "
                                         f"that is neither an undo nor an amendment")
                    if not (entry is None or isinstance(entry, dict) and isinstance(entry.get("type"), str)):
                        raise ValueError(f"{where}.payload.entry: the entry that replaces it, or null")
                    forced = e.payload.get("forced", [])
                    if not isinstance(e.payload.get("reason"), str) or not isinstance(forced, list) or not all(
                            isinstance(f, dict) and isinstance(f.get("seq"), int) and target < f["seq"] < e.seq
                            and isinstance(f.get("message"), str) for f in forced):
                        raise ValueError(f"{where}.payload: an amendment has a reason and the later entries "
                                         f"it forced ({{seq, message, rule}})")
            return self

    return ExportFile


EVENT_FIELDS = {"seq": int, "seat": str, "type": str, "payload": dict, "ts": (int, float), "secret_for": (str, type(None)),
                "summary": str}


def shape_problem(data) -> str | None:
    """One sentence saying what is wrong with the shape of a whole file before any field of it is
    read (any game): an object with ``format``, ``config`` (an object), ``events`` (a list of
    entries, each an object with a ``payload`` object...), or None when the shape is right."""
    if not isinstance(data, dict) or data.get("format") != EXPORT_FORMAT:
        return f"Not a table export (expected an object with format {EXPORT_FORMAT!r})."
    unknown = set(data) - {"format", "table", "config", "events"}
    if unknown:
        return f"Not a table export: unknown top-level field {sorted(map(str, unknown))[0][:40]!r}."
    if "config" not in data or "events" not in data:
        return "A table export needs 'config' and 'events'."
    if not isinstance(data.get("config"), dict):
        return "config: the table's settings, an object (as the export wrote it)."
    if not isinstance(data.get("table"), (str, type(None))):
        return "table: the table's code, a text."
    events = data.get("events")
    if not isinstance(events, list):
        return "events: the table's entries, a list."
    if len(events) > MAX_IMPORT_EVENTS:
        return f"events: at most {MAX_IMPORT_EVENTS} entries."
    for i, e in enumerate(events):
        if not isinstance(e, dict):
            return f"events.{i}: an entry is an object."
        for key, kind in EVENT_FIELDS.items():
            if key in e and (not isinstance(e[key], kind) or isinstance(e[key], bool)):
                return f"events.{i}.{key}: not the kind of value an export holds."
        missing = {"seq", "seat", "type", "payload", "ts"} - set(e)
        if missing:
            return f"events.{i}: {sorted(missing)[0]} is missing."
    return None


def parse_export(data, *, config: type[BaseModel], seat_ids,
                 seats: Callable[[BaseModel], list[str]]) -> tuple[BaseModel | None, str | None]:
    """(the checked export, None) or (None, one sentence saying what is wrong). ``config``,
    ``seat_ids`` and ``seats`` come from the table's game (see ``export_schema``)."""
    if not isinstance(data, dict) or data.get("format") != EXPORT_FORMAT:
        return None, f"Not a table export (expected format {EXPORT_FORMAT!r})."
    if not isinstance(data.get("config"), dict) or not isinstance(data.get("events"), list):
        return None, "A table export needs 'config' and 'events'."
    try:
        return export_schema(config, tuple(seat_ids), seats).model_validate(data), None
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(x) for x in err["loc"])
        msg = err["msg"].removeprefix("Value error, ")
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        return None, (f"{loc}: {msg}" if loc else msg) + more
