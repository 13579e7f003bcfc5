"""Two server processes on one store (one SQLite folder, or one PostgreSQL database) importing the
same export at the same moment: each checks that the file's table code is free, and both may see it
free. The second one to store it is told the code was taken and takes another, so both imports land
(before, the second answered a 500)."""
from __future__ import annotations

import json
from pathlib import Path

from companion import create_app
from conftest import close_app

MIDGAME = Path(__file__).resolve().parents[1] / "benchmarks" / "midgame_6f.json"


def test_an_import_whose_code_another_process_took_meanwhile_takes_another(app, client, tmp_path, database):
    export = json.loads(MIDGAME.read_text("utf-8"))
    first = client.post("/api/tables/import", json=export)
    assert first.status_code == 201, first.get_data(as_text=True)
    taken = first.get_json()["table"]
    other = create_app({"DATA_DIR": str(tmp_path / "data"), "DATABASE": database, "TESTING": True})
    try:
        service = other.extensions["tables"]
        store = service.store
        real = store.table_exists
        asked = []

        def not_yet(code):  # the other process checked before the first import was stored
            asked.append(code)
            return False if len(asked) == 1 else real(code)
        store.table_exists = not_yet
        second = other.test_client().post("/api/tables/import", json=export)
        assert second.status_code == 201, second.get_data(as_text=True)
        code = second.get_json()["table"]
        assert code != taken and asked[0] == taken
        for svc in (service, app.extensions["tables"]):  # both tables are whole, on either process
            assert svc.table(code).revision == svc.table(taken).revision == export["events"][-1]["seq"]
    finally:
        close_app(other)
