"""Database faults in the middle of a hand (issue 26), on SQLite and PostgreSQL: the database
unreachable (PostgreSQL: a proxy that refuses every connection) or busy past the busy timeout
(SQLite: another writer holding the lock), for 3 s and (slow) 30 s.

In each case: the move sent during the outage is refused with ``storage_unavailable`` and
nobody is told of it; the tables pause, with a storage notice; the server's event loop goes on
(another table answers, ``/healthz`` answers, ``/readyz`` says 503); when the database is back
the tables resume by themselves at their last stored state and the move can be sent again;
no move anyone was told of is lost, no hand has a gap; a restart afterwards resumes the same
state, and every record verifies."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text
from sqlalchemy.exc import OperationalError
from starlette.websockets import WebSocketDisconnect

from caishen.cli import main as cli_main
from caishen.server.app import create_app
from caishen.server.db import database_url, make_engine
from helpers_faults import BOUND, Proxy, Seat, SqliteLock, cookie, stored_moves, wait_for
from helpers_server import PG_BASE, ServerProcess, act_json, asked, choose, database

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@contextmanager
def _faulty(kind: str, tmp: Path) -> Iterator[tuple[str, str, Proxy | SqliteLock]]:
    """(the database's own URL, the URL the server gets, the fault to cut and heal)."""
    with database(kind, tmp) as db:
        if kind == "sqlite":
            yield db, db, SqliteLock(db.removeprefix("sqlite:///"))
            return
        host, port = PG_BASE.split("@")[1].split("/")[0].split(":")
        proxy = Proxy(host, int(port))
        try:
            yield db, proxy.url(db), proxy
        finally:
            proxy.close()


def _room(base: str, cookies: dict[str, str]) -> str:
    r = httpx.post(base + "/api/rooms", cookies=cookies, timeout=BOUND,
                   json={"friends": 0, "turn_seconds": 0, "hands": 8, "bot": "random", "pace": "instant"})
    r.raise_for_status()
    code: str = r.json()["code"]
    return code


def _outage(kind: str, tmp: Path, seconds: float) -> None:
    with _faulty(kind, tmp) as (db, url, fault):
        server = ServerProcess(url).start()
        seats: list[Seat] = []
        try:
            base = server.base
            people = [cookie(base, "Ann"), cookie(base, "Bo")]
            codes = [_room(base, c) for c in people]
            a, b = seats[:] = [Seat(base, code, c) for code, c in zip(codes, people, strict=True)]
            for _ in range(3):
                a.move()
                b.move()
            view, bview = a.my_turn(), b.my_turn()
            assert httpx.get(base + "/readyz", timeout=BOUND).status_code == 200

            cut = time.monotonic()
            fault.cut()
            a.ws.send(act_json(view, choose(view)))
            assert a.until(lambda m: m["type"] == "error")["code"] == "storage_unavailable"
            assert a.storage is False  # told before the refusal: "connection to storage lost, retrying"
            assert a.told == (view["hand"], view["step"])  # nobody was told of the move
            # the server goes on: another table answers, then pauses too when it must write
            b.ping()
            b.ws.send(act_json(bview, choose(bview)))
            assert b.until(lambda m: m["type"] == "error")["code"] == "storage_unavailable"
            assert b.told == (bview["hand"], bview["step"])
            assert httpx.get(base + "/healthz", timeout=BOUND).status_code == 200
            assert httpx.get(base + "/readyz", timeout=BOUND).status_code == 503
            assert httpx.get(base + f"/api/rooms/{codes[1]}", timeout=BOUND).status_code in (200, 503)  # never 500
            # sent again while paused: refused at once, nothing changes
            a.ws.send(act_json(view, choose(view)))
            assert a.until(lambda m: m["type"] == "error")["code"] == "storage_unavailable"
            rest = seconds - (time.monotonic() - cut)
            if rest > 0:
                time.sleep(rest)  # the outage's length (the fault itself), not a wait for a state
            fault.heal()

            # both tables resume by themselves, at their last stored state
            for seat, was in ((a, view), (b, bview)):
                seat.until(lambda m: m["type"] == "storage" and m["ok"])
                back = seat.state()
                assert (back["hand"], back["step"]) == (was["hand"], was["step"])
                assert back["choices"] == was["choices"]
            wait_for(lambda: httpx.get(base + "/readyz", timeout=BOUND).status_code == 200, "/readyz after the outage")
            # the move sent again is stored and told; play goes on at both tables (to the
            # match's end, if a deal ends it early)
            for seat in (a, b):
                seat.play_on(3)
            last = a.view if a.play_on(0)["match_over"] else a.my_turn()

            stored = stored_moves(db)
            for (room, hand), seqs in stored.items():
                assert seqs == list(range(len(seqs))), f"gap in room {room} hand {hand}: {seqs}"
            for seat in (a, b):
                hand, step = seat.told
                assert len(stored.get((seat.code, hand), [])) >= step  # every move told is stored
            for seat in seats:
                seat.close()
            seats.clear()

            server.stop()
            server.start()
            again = Seat(base, codes[0], people[0])
            seats.append(again)
            resumed = again.state()
            assert (resumed["hand"], resumed["step"], resumed["tiles"]) == (last["hand"], last["step"], last["tiles"])
            again.play_on(1)
            for code in codes:
                assert httpx.get(base + f"/api/matches/{code}/verify", timeout=BOUND).json()["ok"]
        except BaseException as exc:  # the server's log goes with the failure's report
            for seat in seats:
                seat.close()
            server.stop()
            exc.add_note("the server's log:\n" + server.log()[-6000:])
            raise
        finally:
            for seat in seats:
                seat.close()
            server.stop()


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_database_away_for_3_seconds_mid_hand(kind: str, tmp_path: Path) -> None:
    _outage(kind, tmp_path, 3.0)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_database_away_for_30_seconds_mid_hand(kind: str, tmp_path: Path) -> None:
    _outage(kind, tmp_path, 30.0)


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_a_damaged_room_never_stops_the_centre(kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A room whose stored moves are made inconsistent on purpose (a move no rule allows): the
    centre starts all the same, the room shows as damaged (room, my matches, metrics), its
    record is served up to its last consistent move, the other room plays, and
    ``caishen serve --check`` lists it (exit 1)."""
    with database(kind, tmp_path) as url:
        with TestClient(create_app(url)) as c:
            assert c.post("/api/me", json={"name": "Max"}).status_code == 200
            codes = [c.post("/api/practice?pace=instant").json()["code"] for _ in range(2)]
            for code in codes:
                with c.websocket_connect(f"/ws/{code}") as ws:
                    for _ in range(3):
                        view = asked(ws)
                        ws.send_text(act_json(view, choose(view)))
            kept_cookies = dict(c.cookies)
        bad = codes[0]
        engine = create_engine(url)
        with engine.begin() as conn:
            # the hand with the most moves (the first can be two moves long: a bot's discard and
            # another's win on it, seen in a CI run)
            hand, n = conn.execute(text("SELECT hand, count(*) AS n FROM moves WHERE room = :r GROUP BY hand "
                                        "ORDER BY n DESC, hand LIMIT 1"), {"r": bad}).one()
            assert n >= 3, (hand, n)
            k = n // 2
            kept = conn.execute(text("SELECT seat, action FROM moves WHERE room = :r AND hand = :h AND seq < :k "
                                     "ORDER BY seq"), {"r": bad, "h": hand, "k": k}).all()
            # 叫和局 is not offered in a practice room (九么九和 is off): no replay gets past it
            conn.execute(text("UPDATE moves SET action = 'declare_draw' WHERE room = :r AND hand = :h AND seq = :k"),
                         {"r": bad, "h": hand, "k": k})
        engine.dispose()

        with TestClient(create_app(url), cookies=kept_cookies) as c:  # the restart: the centre starts
            room = c.get(f"/api/rooms/{bad}").json()
            assert room["status"] == "damaged", room
            assert room["damage"].startswith(f"hand {hand + 1} (moves.hand {hand}, seq {k}: 'declare_draw'") and "IllegalActionError" in room["damage"]
            mine = {m["code"]: m["status"] for m in c.get("/api/my/matches").json()}
            assert mine[bad] == "damaged"
            assert c.get(f"/api/matches/{bad}").json()["status"] == "damaged"
            assert c.get(f"/api/matches/{bad}/record").status_code == 200
            assert c.get(f"/api/matches/{bad}/verify").json()["ok"]
            consistent = c.app.state.tables.consistent(c.app.state.store.room(bad))  # type: ignore[attr-defined]
            assert [(m.seat, m.action.text()) for m in consistent.moves[:k]] == [tuple(r) for r in kept]
            assert len(consistent.moves) < k + 1 or consistent.moves[k].action.text() != "declare_draw"
            with pytest.raises(WebSocketDisconnect) as closed, c.websocket_connect(f"/ws/{bad}") as ws:
                ws.receive_json()
            assert closed.value.code == 1008
            metrics = c.get("/metrics").text
            assert "caishen_damaged_rooms 1.0" in metrics
            with c.websocket_connect(f"/ws/{codes[1]}") as ws:  # the other room plays on
                view = asked(ws)
                ws.send_text(act_json(view, choose(view)))
                # the move's event and states come in the room's order; read up to the first
                # state past the move (at most a hand's worth of messages): a later step, the
                # hand's end, or another phase or turn at the same step (a pass is no step: passing
                # a chow, the person may draw next and be asked to discard at the pass's step)
                for _ in range(500):
                    nxt = ws.receive_json()
                    assert nxt["type"] != "error", (view, nxt)  # refused: nothing more would come
                    if nxt["type"] == "state" and ((nxt["hand"], nxt["step"]) > (view["hand"], view["step"])
                                                   or nxt["hand_end"] is not None
                                                   or (nxt["phase"], nxt["current"]) != (view["phase"], view["current"])):
                        break
                else:
                    raise AssertionError("no state past the move within 500 messages")
        capsys.readouterr()
        assert cli_main(["serve", "--check", "--db", url]) == 1
        out = capsys.readouterr().out
        assert f"{bad}\tdamaged\t" in out and codes[1] not in out and "1 damaged room" in out


def test_db_takes_an_sqlite_files_path_as_well_as_a_url(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """``--db centre.sqlite3`` (a path, relative or not) is an SQLite file there: it was refused
    as "Could not parse SQLAlchemy URL", where an operator expects a path to work."""
    monkeypatch.chdir(tmp_path)
    with TestClient(create_app(database_url("centre.sqlite3"))):  # a centre's database, made by serving
        pass
    assert (tmp_path / "centre.sqlite3").stat().st_size > 0  # the schema is there
    assert cli_main(["serve", "--check", "--db", "centre.sqlite3"]) == 0
    assert capsys.readouterr().out.strip().endswith("0 damaged rooms")
    assert cli_main(["serve", "--check", "--db", f"sqlite:///{tmp_path / 'centre.sqlite3'}"]) == 0  # the same file
    assert cli_main(["serve", "--check", "--db", "nosuch://x"]) == 2  # a URL still must be one
    assert "cannot check the database" in capsys.readouterr().err


def test_serve_sets_the_bots_cache_share_it_is_given(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``caishen serve --bot-cache-share F`` (docs/server.md, "Memory"): the caches the bots
    fill keep F of their limits (an operator trades memory for CPU per move); a share that is
    no share is refused in one line."""
    from caishen.bots import caches, shape
    from caishen.server.hygiene import ServeOptions

    url = f"sqlite:///{tmp_path / 'centre.sqlite3'}"
    try:
        with TestClient(create_app(url, options=ServeOptions(bot_cache_share=0.5))):
            assert shape._limits == [shape.SUIT_CACHE // 2, shape.HALF_CACHE // 2, shape.HAND_CACHE // 2,
                                     shape.COMBINED_CACHE // 2, shape.COVER_CACHE // 2]
        with TestClient(create_app(url)):
            assert shape._limits[2] == shape.HAND_CACHE // 10  # the default: a tenth
    finally:
        caches.set_cache_share(1.0)
    for bad in ("0", "1.5", "half"):
        with pytest.raises(SystemExit) as stop:
            cli_main(["serve", "--bot-cache-share", bad, "--check", "--db", url])
        assert stop.value.code == 2
        assert f"a share is a number over 0 and at most 1, not '{bad}'" in capsys.readouterr().err


@pytest.mark.parametrize(("args", "said"), [
    (["--port", "70000"], "argument --port: a port from 1 to 65535, not '70000'"),
    (["--port", "0"], "argument --port: a port from 1 to 65535, not '0'"),
    (["--header-timeout", "0"], "argument --header-timeout: over 0 seconds, not '0'"),
    (["--keep-alive", "-1"], "argument --keep-alive: whole seconds, 0 or more, not '-1'"),
    (["--max-connections", "5"], "argument --max-connections: at least 16 connections, not '5'"),
    (["--evict-after", "-1"], "argument --evict-after: over 0 seconds, not '-1'"),
    (["--unopened-hours", "0"], "argument --unopened-hours: over 0 hours, at most 876000 (100 years), not '0'"),
    (["--unopened-hours", "nan"], "argument --unopened-hours: over 0 hours, at most 876000 (100 years), not 'nan'"),
    # a sweep subtracting these from the date overflowed, every 30 s, with a traceback
    (["--unopened-hours", "inf"], "argument --unopened-hours: over 0 hours, at most 876000 (100 years), not 'inf'"),
    (["--unopened-hours", "1e8"], "argument --unopened-hours: over 0 hours, at most 876000 (100 years), not '1e8'"),
    (["--header-timeout", "inf"], "argument --header-timeout: over 0 seconds, not 'inf'"),
    (["--evict-after", "inf"], "argument --evict-after: over 0 seconds, not 'inf'"),
    (["--frobnicate"], "caishen serve: error: unrecognized arguments: --frobnicate (see caishen serve --help)"),
])
def test_serve_refuses_an_option_out_of_its_range_in_one_line(
        args: list[str], said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An operator's review (2026-12-06): --port 70000 listened on another port, --header-timeout 0
    failed requests at random, --unopened-hours 0 expired every new room at once, and each was
    taken without a word."""
    with pytest.raises(SystemExit) as stop:
        cli_main(["serve", *args, "--check", "--db", f"sqlite:///{tmp_path / 'c.sqlite3'}"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert said in err and err.count("\n") == 1


def test_serve_check_and_serve_refuse_what_would_make_a_centre_that_cannot_work(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """--check on a mistyped path made a new database and said "0 damaged rooms"; an empty --db
    took the default database; a Redis nobody answers at made a node that said it was ready and
    could play nothing; a port in use was told after the banner, exit 3. Each is one line, exit 2."""
    missing = tmp_path / "mistyped.sqlite3"
    assert cli_main(["serve", "--check", "--db", str(missing)]) == 2
    err = capsys.readouterr().err  # (a long path is shortened in the line)
    assert err.startswith("caishen serve: error: no database at /") and err.count("\n") == 1
    assert err.endswith(" --check reads an existing centre's database\n")
    assert not missing.exists()
    assert cli_main(["serve", "--check", "--db", ""]) == 2
    assert "--db is empty" in capsys.readouterr().err
    db = f"sqlite:///{tmp_path / 'c.sqlite3'}"
    assert cli_main(["serve", "--db", db, "--port", "8879", "--redis", "redis://127.0.0.1:1/9"]) == 2
    err = capsys.readouterr()
    assert err.err.startswith("caishen serve: error: cannot reach Redis at redis://127.0.0.1:1/9: ")
    assert "caishen game centre on" not in err.out  # no banner for a centre that does not start
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        monkeypatch.setattr("caishen.server.workers.BIND_SECONDS", 0.0)  # no wait for a restart's old process
        assert cli_main(["serve", "--db", db, "--port", str(port)]) == 2
    err = capsys.readouterr()
    assert err.err.strip() == f"caishen serve: error: cannot listen on 127.0.0.1:{port}: Address already in use"
    assert "caishen game centre on" not in err.out


def test_check_upgrades_no_schema(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--check on a database of an older caishen upgraded its schema (a write, which the older
    caishen then refused: "Can't locate revision"), where it was to write nothing but the
    damaged marks: now it says so in one line, exit 2, and leaves the database as it was."""
    from alembic import command  # noqa: PLC0415 - this test only
    from alembic.config import Config  # noqa: PLC0415

    from caishen.server.db import MIGRATIONS, upgrade  # noqa: PLC0415

    path = tmp_path / "old.sqlite3"
    engine = make_engine(f"sqlite:///{path}")
    upgrade(engine)
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0011")
    assert cli_main(["serve", "--check", "--db", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "its schema is at migration 0011, this caishen's is 0012: --check upgrades nothing" in err
    with engine.connect() as conn:
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar() == "0011"
    engine.dispose()


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_the_log_says_when_the_database_goes_and_comes_back_with_no_table_playing(kind: str, tmp_path: Path) -> None:
    """A centre with no table writing said nothing in its log while its database was away (an
    operator's review): it probes the database every few seconds and logs one line when it
    stops answering and one when it answers again, with how long it was away."""
    import json

    def events() -> list[dict[str, object]]:
        lines = [json.loads(x) for x in server.log().splitlines() if x.startswith("{")]
        return [x for x in lines if str(x.get("event", "")).startswith("database_")]

    with _faulty(kind, tmp_path) as (_db, url, fault):
        server = ServerProcess(url).start()
        try:
            assert httpx.get(server.base + "/readyz", timeout=BOUND).status_code == 200
            fault.cut()
            wait_for(lambda: len(events()) == 1, "the log's database_unavailable")
            fault.heal()
            wait_for(lambda: len(events()) == 2, "the log's database_available")
            lost, back = events()
            assert lost["event"] == "database_unavailable" and lost["level"] == "warning" and lost["error"]
            assert back["event"] == "database_available" and isinstance(back["seconds"], float) and back["seconds"] > 0
            assert httpx.get(server.base + "/readyz", timeout=BOUND).status_code == 200
        except BaseException as exc:
            exc.add_note("the server's log:\n" + server.log()[-6000:])
            raise
        finally:
            server.stop()


def test_ready_means_the_database_can_be_written(tmp_path: Path) -> None:
    """A file SQLite can only read (made read-only by its owner, a full disk's remount): the
    write lock is taken all the same, and /readyz said "ready" while every write failed. The
    probe now makes a write that changes nothing."""
    from caishen.server.store import Store

    path = tmp_path / "c.sqlite3"
    with TestClient(create_app(f"sqlite:///{path}")) as c:
        assert c.get("/readyz").status_code == 200
    engine = make_engine(f"sqlite:///file:{path}?mode=ro&uri=true")
    try:
        with pytest.raises(OperationalError, match="readonly"):
            Store(engine).probe()
    finally:
        engine.dispose()


@pytest.mark.redis
def test_a_node_is_not_ready_while_its_redis_does_not_answer(tmp_path: Path) -> None:
    """A node whose Redis went away (or was mistyped) said "ready" and refused every table
    (1013): a balancer's readiness check now sees 503, and 200 again once it answers."""
    from helpers_nodes import REDIS_URL, require_services

    require_services()
    target = httpx.URL(REDIS_URL.replace("redis://", "http://"))
    proxy = Proxy(target.host, target.port or 6379)
    try:
        app = create_app(f"sqlite:///{tmp_path / 'c.sqlite3'}", redis=f"redis://127.0.0.1:{proxy.port}/9")
        with TestClient(app) as c:
            assert c.get("/readyz").json() == {"status": "ready"}
            proxy.cut()
            r = c.get("/readyz")
            assert r.status_code == 503 and r.json()["status"] == "redis_unavailable"
            proxy.heal()
            wait_for(lambda: c.get("/readyz").status_code == 200, "/readyz once Redis answers again")
    finally:
        proxy.close()


@pytest.mark.redis
def test_a_nodes_log_and_metrics_say_when_redis_goes_and_comes_back(tmp_path: Path) -> None:
    """A node whose Redis went away logged "relay subscription failed" with the error's type
    every second, and nothing when it came back; no metric said it (an operator's review). It
    probes Redis as it renews its leases: one line when Redis stops answering, one when it
    answers again with how long it was away, and ``caishen_redis_ok``."""
    import json

    from helpers_nodes import REDIS_URL, require_services

    require_services()
    target = httpx.URL(REDIS_URL.replace("redis://", "http://"))
    proxy = Proxy(target.host, target.port or 6379)
    server = ServerProcess(f"sqlite:///{tmp_path / 'c.sqlite3'}", args=("--redis", f"redis://127.0.0.1:{proxy.port}/9"))

    def events() -> list[dict[str, object]]:
        lines = [json.loads(x) for x in server.log().splitlines() if x.startswith("{")]
        return [x for x in lines if str(x.get("event", "")).startswith(("redis_", "relay_"))]

    def redis_ok() -> str:
        text = httpx.get(server.base + "/metrics", timeout=BOUND).text
        return next(line.split()[1] for line in text.splitlines() if line.startswith("caishen_redis_ok "))

    try:
        server.start()
        assert redis_ok() == "1.0"
        proxy.cut()
        wait_for(lambda: [e["event"] for e in events()] == ["redis_unavailable"], "the log's redis_unavailable")
        assert redis_ok() == "0.0"
        proxy.heal()
        wait_for(lambda: len(events()) == 2, "the log's redis_available")
        lost, back = events()
        assert lost["level"] == "warning" and lost["error"]
        assert back["event"] == "redis_available" and isinstance(back["seconds"], float) and back["seconds"] > 0
        assert redis_ok() == "1.0"
    except BaseException as exc:
        exc.add_note("the server's log:\n" + server.log()[-6000:])
        raise
    finally:
        server.stop()
        proxy.close()
