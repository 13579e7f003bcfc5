"""A table to a file and back: the host's export (every entry, secrets included) and the import,
which checks the whole file and replays it before anything is stored. A mixin of ``TableService``."""
from __future__ import annotations

import logging

from .. import games
from .errors import EntryError, Forbidden
from .export_format import EXPORT_FORMAT, shape_problem
from .store.base import CodeTaken

log = logging.getLogger("companion.table.service")
IMPORT_TRIES = 5  # codes tried when other processes import the same file at the same moment


class Transfer:
    def export(self, code: str) -> dict:
        t = self.table(code)
        why = games.of_config(t.config).export_refused(t.state)
        if why:
            raise Forbidden(why)
        self.store.backup_soon("export")  # a timestamped copy of the whole store (SQLite), rate-limited
        game = games.of_config(t.config)
        seal = getattr(game, "export_event", None)
        with t.lock:
            events = list(self.all_events(t))
            if seal is not None:
                events = [seal(e, t.state) for e in events]
            return {"format": EXPORT_FORMAT, "table": t.code, "config": t.config, "events": events}

    def import_table(self, data: dict, check=None) -> dict:
        """Restore an export as a new table. The whole file is checked against the export schema,
        then every entry is replayed strictly and every seat's view is built, before anything is
        stored: a refused file changes nothing, and an imported table can always show its pages."""
        from .views import view_for
        problem = shape_problem(data)  # the whole file's shape, before any field of it is read
        if problem:
            raise EntryError(problem)
        config_game = data["config"].get("game")
        try:
            game = games.get(config_game if isinstance(config_game, str) else None)
            config, events, code = game.parse_import(data)
        except games.ConfigError as exc:
            raise EntryError(exc.message, exc.rule) from None
        try:
            state, _ = self.fold("CHECK", config, events, strict=True)
            problems = game.invariants(state)
            if problems:
                raise EntryError(f"its bookkeeping does not add up ({problems[0]})")
            for viewer in ["host", "board", *game.seats(config)]:
                view_for(state, viewer)
            if check is not None:  # e.g. the web layer renders every seat's page from it
                check(state, config)
        except EntryError as exc:
            raise EntryError(f"The export does not replay: {exc.message}") from None
        except Exception as exc:  # noqa: BLE001 - a malformed file, whatever is wrong with it
            log.warning("import refused: %r", exc)
            raise EntryError(f"The export does not replay: {type(exc).__name__}: {exc}"[:300]) from None
        seats = {"host": self.new_token()}
        seats.update({s: self.new_token() for s in game.seats(config)})
        with self._import_lock:  # two imports of one file at once must not both take its code
            if not self.code_ok(code) or self.store.table_exists(code):
                code = self.new_code()
            for _ in range(IMPORT_TRIES):
                try:
                    self.store.import_table(code, config, seats, events)
                    break
                except CodeTaken:  # another process on the same store took that code first
                    code = self.new_code()
            else:
                raise EntryError("No free table code was found for this import: try again.")
        return {"code": code, "host_token": seats.pop("host"), "seats": seats}
