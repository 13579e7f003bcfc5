"""A phone during a storage fault (real headless Chromium): the entry is not saved, the phone
says why in one sentence with a Retry, the form keeps what was typed, and Retry sends it once
the fault has cleared."""
from __future__ import annotations

import re
import sqlite3
import threading

import pytest
from werkzeug.serving import make_server

from companion import create_app
from conftest import PHONE, close_app, free_port

pytestmark = pytest.mark.browser


@pytest.fixture()
def served(tmp_path):
    app = create_app({"DATA_DIR": str(tmp_path / "data"), "TESTING": True})
    port = free_port()
    srv = make_server("127.0.0.1", port, app, threaded=True)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield app, f"http://127.0.0.1:{port}"
    srv.shutdown()
    close_app(app)


def test_a_full_disk_on_a_phone_shows_a_retry_and_keeps_the_typed_entry(served, browser, tmp_path):
    from playwright.sync_api import expect

    app, url = served
    client = app.test_client()
    body = client.post("/api/tables", json={"factions": ["atreides", "harkonnen"]}).get_json()
    code, host = body["table"], body["host_token"]
    store = app.extensions["tables"].store
    ctx = browser.new_context(**PHONE)
    page = ctx.new_page()
    page.goto(f"{url}/t/{code}/join")
    page.tap('button[name="seat"][value="atreides"]')
    page.wait_for_url(re.compile(rf"/t/{code}$"))
    page.locator("#enter > summary").tap()  # corrections sit under "Enter by hand"
    page.locator("summary", has_text="Storm sector").tap()
    form = page.locator("form:has(input[name='type'][value='storm.set'])")
    form.locator("input[name='sector']").fill("7")

    def disk_full(*args, **kwargs):  # what SQLite says when the disk is full (faked here)
        store._fault(sqlite3.OperationalError("database or disk is full"))
    store.append_event = disk_full
    form.locator("button[type='submit']").tap()
    box = page.locator("#storage-fault")
    expect(box).to_be_visible()
    expect(box).to_contain_text("disk is full")
    retry = box.locator("button[data-storage-retry]")
    expect(retry).to_be_visible()
    size = retry.bounding_box()
    assert size["height"] >= 44 and size["width"] >= 44
    expect(form.locator("input[name='sector']")).to_have_value("7")   # nothing typed is lost
    assert client.get(f"/api/tables/{code}/state", headers={"Authorization": f"Bearer {host}"}
                      ).get_json()["revision"] == 0
    page.screenshot(path=str(tmp_path / "storage-fault.png"))

    del store.append_event  # space is back
    retry.tap()
    expect(box).to_have_count(0)
    expect(page.locator(".status .storm .sector")).to_have_text("7")
    state = client.get(f"/api/tables/{code}/state", headers={"Authorization": f"Bearer {host}"}).get_json()
    assert state["revision"] == 1 and state["storm"]["sector"] == 7
    ctx.close()
