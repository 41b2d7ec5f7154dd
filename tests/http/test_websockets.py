"""WebSockets through both adapters: typed parameters, accept/receive/send/close, disconnects,
limits, refusals, and graceful shutdown (the wire itself: tests/servers/e2e/test_websockets.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated, Any

import pytest

from hasten import (
    App,
    Depends,
    FileResponse,
    Header,
    HTTPError,
    Query,
    Request,
    StreamingResponse,
    WebSocket,
    WebSocketDisconnect,
    WebSocketException,
)
from hasten._cli.servers import Interface
from hasten._serve.protocols import rsgi
from hasten.testing import TestClient, WebSocketDenialResponse, WebSocketTestSession
from hasten.websockets import WebSocketState
from tests.conftest import ClientFactory


def echo_app(**settings: Any) -> App:
    app = App(**settings)
    events: list[Any] = []
    app.state.events = events

    @app.websocket("/ws/{room}")
    async def room(
        websocket: WebSocket,
        room: str,
        limit: int = Query(3),
        user_agent: str = Header("none"),
    ) -> None:
        await websocket.accept()
        await websocket.send_json({"room": room, "limit": limit, "agent": user_agent})
        try:
            async for text in websocket.iter_text():
                await websocket.send_text(f"echo: {text}")
        finally:
            events.append("iteration ended")

    @app.websocket("/bytes")
    async def binary(websocket: WebSocket) -> None:
        await websocket.accept()
        data = await websocket.receive_bytes()
        await websocket.send_bytes(data[::-1])
        value = await websocket.receive_json()
        await websocket.send_json(value, mode="binary")
        await websocket.close(4000, "done")

    @app.websocket("/raises")
    async def raises(websocket: WebSocket) -> None:
        await websocket.accept()
        try:
            await websocket.receive_text()
        except WebSocketDisconnect as exc:
            events.append(exc.code)
            raise

    @app.websocket("/refuse/{n:int}")
    async def refuse(websocket: WebSocket, n: int) -> None:
        if n == 1:
            raise HTTPError(401, "who are you")
        if n == 2:
            await websocket.close()
            return
        raise RuntimeError("boom")

    @app.websocket("/forgets")
    async def forgets(websocket: WebSocket) -> None:
        await websocket.accept()

    @app.get("/http-only")
    async def http_only() -> str:
        return "http"

    return app


def test_echo_with_typed_parameters(serve: ClientFactory) -> None:
    app = echo_app()
    client = serve(app)
    with client.websocket_connect("/ws/lobby?limit=5", headers={"user-agent": "t"}) as ws:
        assert ws.receive_json() == {"room": "lobby", "limit": 5, "agent": "t"}
        ws.send_text("hi")
        assert ws.receive_text() == "echo: hi"
        ws.send_text("again")
        assert ws.receive_text() == "echo: again"
    assert app.state.events == ["iteration ended"]


def test_binary_json_and_a_close_code(serve: ClientFactory) -> None:
    client = serve(echo_app())
    with client.websocket_connect("/bytes") as ws:
        ws.send_bytes(b"abc")
        assert ws.receive_bytes() == b"cba"
        ws.send_json({"a": [1]})
        assert ws.receive_bytes() == b'{"a":[1]}'
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_text()
    # Granian's RSGI sends no close code: the client sees 1005.
    expected = (4000, "done") if client.interface == "asgi" else (1005, "")
    assert (closed.value.code, closed.value.reason) == expected


def test_a_client_close_raises_in_receive(serve: ClientFactory) -> None:
    app = echo_app()
    client = serve(app)
    # The handler lets the WebSocketDisconnect out: the test gets it, as with Starlette's.
    with pytest.raises(WebSocketDisconnect), client.websocket_connect("/raises") as ws:
        ws.close(4001, "bye")
    code = 4001 if client.interface == "asgi" else 1005
    assert app.state.events == [code]


def test_invalid_parameters_refuse_the_handshake(serve: ClientFactory) -> None:
    client = serve(echo_app())
    with pytest.raises(WebSocketDenialResponse) as denied:
        client.websocket_connect("/ws/lobby?limit=many")
    assert denied.value.status_code == 422


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/refuse/1", 401),
        ("/refuse/2", 403),
        ("/refuse/3", 500),
        ("/nowhere", 404),
        ("/http-only", 403),
    ],
)
def test_refusals(serve: ClientFactory, path: str, status: int) -> None:
    with pytest.raises(WebSocketDenialResponse) as denied:
        serve(echo_app(), raise_server_exceptions=False).websocket_connect(path)
    assert denied.value.status_code == status


async def session(websocket: WebSocket, token: str | None = None) -> str:
    if token is None:
        raise WebSocketException(1008, "no token")
    return token


def test_a_websocket_exception_closes_with_its_code_and_reason(serve: ClientFactory) -> None:
    """Starlette's WebSocketException: before accept() the handshake is refused (403),
    after it the socket is closed with the exception's code and reason."""
    app = App()

    @app.websocket("/guarded")
    async def guarded(websocket: WebSocket, token: Annotated[str, Depends(session)]) -> None:
        await websocket.accept()
        text = await websocket.receive_text()
        raise WebSocketException(4003, f"{token} may not say {text}")

    client = serve(app)
    with pytest.raises(WebSocketDenialResponse) as denied:
        client.websocket_connect("/guarded")
    assert denied.value.status_code == 403
    with client.websocket_connect("/guarded?token=ann") as ws:
        ws.send_text("hello")
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_text()
    # Granian's RSGI sends no close code: the client sees 1005.
    expected = (4003, "ann may not say hello") if client.interface == "asgi" else (1005, "")
    assert (closed.value.code, closed.value.reason) == expected


ALLOWED = ["https://app.example", "http://localhost:5173"]


@pytest.mark.parametrize(
    ("origin", "opens"),
    [
        ("https://app.example", True),
        ("HTTPS://App.Example/", True),  # an origin compares case-insensitively
        ("http://localhost:5173", True),
        ("https://evil.example", False),  # another site's page: cross-site WebSocket hijacking
        ("https://app.example.evil.example", False),
        ("http://app.example", False),  # another scheme is another origin
        ("null", False),  # a sandboxed page or a file
        (None, True),  # no Origin: not a browser, so no other site's page opened it
    ],
)
def test_allowed_origins_refuse_other_sites_pages(
    serve: ClientFactory, origin: str | None, opens: bool
) -> None:
    app = echo_app(websocket_allowed_origins=ALLOWED)
    # The refused accept() raises WebSocketDisconnect(1008) in the handler, which lets it out:
    # the denial, not that, is what this test looks at.
    client = serve(app, raise_server_exceptions=False)
    headers = {} if origin is None else {"origin": origin}
    if opens:
        with client.websocket_connect("/ws/lobby", headers=headers) as ws:
            assert ws.receive_json()["room"] == "lobby"
        return
    with pytest.raises(WebSocketDenialResponse) as denied:
        client.websocket_connect("/ws/lobby", headers=headers)
    assert denied.value.status_code == 403
    assert app.state.events == []  # the handler stopped at accept(): nothing was served


def test_any_origin_by_default_as_in_starlette(serve: ClientFactory) -> None:
    client = serve(echo_app())
    with client.websocket_connect("/ws/x", headers={"origin": "https://evil.example"}) as ws:
        assert ws.receive_json()["room"] == "x"


@pytest.mark.parametrize("origin", ["*", "app.example", "https://app.example/path"])
def test_allowed_origins_must_be_origins(origin: str) -> None:
    with pytest.raises(ValueError, match="websocket_allowed_origins takes origins"):
        App(websocket_allowed_origins=[origin])


def test_a_handler_that_does_not_close_is_closed_for_it(serve: ClientFactory) -> None:
    client = serve(echo_app())
    with client.websocket_connect("/forgets") as ws:
        code = 1000 if client.interface == "asgi" else 1005
        assert ws.receive() == {"type": "websocket.close", "code": code, "reason": ""}


def test_http_to_a_websocket_route_is_404(serve: ClientFactory) -> None:
    client = serve(echo_app())
    assert client.get("/ws/lobby").status_code == 404
    assert client.get("/bytes").status_code == 404


def test_max_size_closes_with_1009(serve: ClientFactory) -> None:
    client = serve(echo_app(websocket_max_size=10))
    with client.websocket_connect("/ws/x") as ws:
        ws.receive_json()
        ws.send_text("short")
        assert ws.receive_text() == "echo: short"
        ws.send_text("x" * 11)
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_text()
    assert closed.value.code == (1009 if client.interface == "asgi" else 1005)


def test_idle_timeout_closes_with_1001(serve: ClientFactory) -> None:
    client = serve(echo_app(websocket_idle_timeout=0.05))
    with client.websocket_connect("/ws/x") as ws:
        ws.receive_json()
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_text()
    assert closed.value.code == (1001 if client.interface == "asgi" else 1005)


def test_wrong_message_kinds_and_bad_json_close_the_socket(serve: ClientFactory) -> None:
    client = serve(echo_app())
    with client.websocket_connect("/ws/x") as ws:
        ws.receive_json()
        ws.send_bytes(b"binary")
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_text()
    assert closed.value.code == (1003 if client.interface == "asgi" else 1005)
    # The handler's receive_bytes() and receive_json() raise the close they caused; let out,
    # it reaches the test as the session ends.
    seen: list[tuple[list[bytes], int]] = []
    with pytest.raises(WebSocketDisconnect) as let_out, client.websocket_connect("/bytes") as ws:
        seen.append(replies_until_closed(ws, "text, not bytes"))
    assert (let_out.value.code, let_out.value.reason) == (1003, "expected a binary message")
    with pytest.raises(WebSocketDisconnect) as let_out, client.websocket_connect("/bytes") as ws:
        seen.append(replies_until_closed(ws, b"x", "{not json"))
    assert let_out.value.code == 1007
    asgi = client.interface == "asgi"
    assert seen == [([], 1003 if asgi else 1005), ([b"x"], 1007 if asgi else 1005)]


def replies_until_closed(
    ws: WebSocketTestSession, *messages: str | bytes
) -> tuple[list[bytes], int]:
    """Send ``messages``: the app's binary replies, and the code it closed with."""
    for message in messages:
        if isinstance(message, bytes):
            ws.send_bytes(message)
        else:
            ws.send_text(message)
    replies: list[bytes] = []
    while (reply := ws.receive())["type"] == "websocket.send":
        replies.append(reply["bytes"])
    code: int = reply["code"]
    return replies, code


def test_subprotocols_over_asgi_and_what_rsgi_refuses(serve: ClientFactory) -> None:
    app = App()
    failures: list[str] = []

    @app.websocket("/chat")
    async def chat(websocket: WebSocket) -> None:
        offered = websocket.subprotocols
        try:
            await websocket.accept(subprotocol="v2.chat", headers={"x-room": "1"})
        except RuntimeError as exc:
            failures.append(str(exc))
            await websocket.accept()
        await websocket.send_json(offered)

    client = serve(app)
    with client.websocket_connect("/chat", subprotocols=["v1.chat", "v2.chat"]) as ws:
        assert ws.receive_json() == ["v1.chat", "v2.chat"]
        if client.interface == "asgi":
            assert ws.accepted_subprotocol == "v2.chat"
            assert ws.extra_headers == [(b"x-room", b"1")]
            assert failures == []
        else:
            assert ws.accepted_subprotocol is None
            assert "RSGI cannot send a subprotocol" in failures[0]


def test_accept_checks_the_offer_and_the_state(serve: ClientFactory) -> None:
    app = App()
    seen: list[str] = []

    @app.websocket("/strict")
    async def strict(websocket: WebSocket) -> None:
        with pytest.raises(ValueError, match="not offered"):
            await websocket.accept(subprotocol="nope")
        # Before accept(): the handshake's message (Starlette's), then nothing to receive.
        assert await websocket.receive() == {"type": "websocket.connect"}
        with pytest.raises(RuntimeError, match="accept it"):
            await websocket.receive()
        await websocket.accept()
        with pytest.raises(RuntimeError, match="connected"):
            await websocket.accept()
        with pytest.raises(RuntimeError, match="connected"):
            await websocket.refuse()
        seen.append(repr(websocket))
        await websocket.close()
        with pytest.raises(RuntimeError, match="once a close message has been sent"):
            await websocket.close()  # twice is an error, as in Starlette
        with pytest.raises(RuntimeError, match="closed"):
            await websocket.send_text("late")

    with serve(app).websocket_connect("/strict") as ws, pytest.raises(WebSocketDisconnect):
        ws.receive_text()
    assert seen == ["<WebSocket /strict connected>"]


def test_handlers_must_be_async_and_take_the_right_connection() -> None:
    app = App()
    with pytest.raises(TypeError, match="must be an async def"):

        @app.websocket("/sync")
        def sync(websocket: WebSocket) -> None: ...

    with pytest.raises(TypeError, match="take a WebSocket"):

        @app.websocket("/request")
        async def takes_request(request: Request) -> None: ...

    with pytest.raises(TypeError, match="take a Request"):

        @app.get("/socket")
        async def takes_socket(websocket: WebSocket) -> None: ...

    class Payload(dict[str, int]): ...

    with pytest.raises(TypeError, match="no request body"):

        @app.websocket("/body")
        async def body(websocket: WebSocket, payload: dict[str, int]) -> None: ...


def test_shutdown_closes_open_sockets_with_1001(serve: ClientFactory) -> None:
    app = App(shutdown_timeout=0.1)
    ended: list[str] = []

    @app.websocket("/wait")
    async def wait(websocket: WebSocket) -> None:
        await websocket.accept()
        try:
            await websocket.receive()
        finally:
            ended.append("ended")

    client = serve(app)
    ws = client.websocket_connect("/wait")
    client.shutdown()
    with pytest.raises(WebSocketDisconnect) as closed:
        ws.receive_text()
    assert closed.value.code == (1001 if client.interface == "asgi" else 1005)
    assert ended == ["ended"]


def test_iter_bytes_and_iter_json(serve: ClientFactory) -> None:
    app = App()
    seen: list[Any] = []

    @app.websocket("/bytes")
    async def binary(websocket: WebSocket) -> None:
        await websocket.accept()
        async for data in websocket.iter_bytes():
            seen.append(data)

    @app.websocket("/json")
    async def json_messages(websocket: WebSocket) -> None:
        await websocket.accept()
        async for value in websocket.iter_json():
            await websocket.send_json({"got": value})

    client = serve(app)
    with client.websocket_connect("/bytes") as ws:
        ws.send_bytes(b"a")
        ws.send_bytes(b"b")
    assert seen == [b"a", b"b"]
    with client.websocket_connect("/bytes") as ws:
        ws.send_text("not bytes")
        with pytest.raises(WebSocketDisconnect):
            ws.receive_text()
    with client.websocket_connect("/json") as ws:
        ws.send_json([1, 2])
        assert ws.receive_json() == {"got": [1, 2]}
        ws.send_bytes(b'{"a": 1}')
        assert ws.receive_json() == {"got": {"a": 1}}


SESSION_EVENTS: list[str] = []


async def ws_session(token: str = Query()) -> AsyncIterator[str]:
    if token != "good":
        raise HTTPError(401, "bad token")
    SESSION_EVENTS.append("opened")
    yield f"user-{token}"
    SESSION_EVENTS.append("closed")


def ws_agent(user_agent: str = Header("none")) -> str:  # a sync dependency: thread pool
    return user_agent


def test_dependencies_on_a_websocket_route(serve: ClientFactory) -> None:
    app = App()
    SESSION_EVENTS.clear()

    @app.websocket("/dep/{room}")
    async def room(
        websocket: WebSocket,
        room: str,
        user: Annotated[str, Depends(ws_session)],
        ua: Annotated[str, Depends(ws_agent)],
    ) -> None:
        await websocket.accept()
        await websocket.send_json({"room": room, "user": user, "agent": ua})
        await websocket.receive_text()
        SESSION_EVENTS.append("handler done")

    client = serve(app)
    with client.websocket_connect("/dep/r1?token=good", headers={"user-agent": "t"}) as ws:
        assert ws.receive_json() == {"room": "r1", "user": "user-good", "agent": "t"}
        ws.send_text("bye")
        with pytest.raises(WebSocketDisconnect):
            ws.receive_text()
    assert SESSION_EVENTS == ["opened", "handler done", "closed"]
    with pytest.raises(WebSocketDenialResponse) as denied:
        client.websocket_connect("/dep/r1?token=bad")
    assert denied.value.status_code == 401
    with pytest.raises(WebSocketDenialResponse) as denied:
        client.websocket_connect("/dep/r1")
    assert denied.value.status_code == 422


class RoomClosed(Exception):
    pass


def test_an_apps_exception_handler_answers_a_websocket_error(interface: Interface) -> None:
    async def close_room(websocket: WebSocket, exc: RoomClosed) -> None:
        await websocket.close(4001, "room closed")

    def other(request: Request, exc: Exception) -> None:
        raise AssertionError("an Exception handler is for HTTP requests only")

    handlers: dict[Any, Any] = {RoomClosed: close_room, Exception: other}
    app = App(exception_handlers=handlers)

    @app.websocket("/room")
    async def room(websocket: WebSocket) -> None:
        await websocket.accept()
        raise RoomClosed

    @app.websocket("/broken")
    async def broken(websocket: WebSocket) -> None:
        await websocket.accept()
        raise ValueError("unhandled")

    client = TestClient(app, interface=interface, raise_server_exceptions=False)
    with (
        client.websocket_connect("/room") as websocket,
        pytest.raises(WebSocketDisconnect) as closed,
    ):
        websocket.receive_text()
    # Granian's RSGI carries no close code after the handshake (its 1005: none given).
    wanted = (4001, "room closed") if interface == "asgi" else (1005, "")
    assert (closed.value.code, closed.value.reason) == wanted
    with (
        client.websocket_connect("/broken") as websocket,
        pytest.raises(WebSocketDisconnect) as failed,
    ):
        websocket.receive_text()
    assert failed.value.code == (1011 if interface == "asgi" else 1005)


@pytest.fixture
def told(monkeypatch: pytest.MonkeyPatch) -> set[str]:
    """What the RSGI adapter has said it could not send, fresh for the test (it says each
    once per process)."""
    fresh: set[str] = set()
    monkeypatch.setattr(rsgi, "told", fresh)
    return fresh


def test_what_rsgi_cannot_send_is_said_once(
    serve: ClientFactory, caplog: pytest.LogCaptureFixture, told: set[str]
) -> None:
    app = App()

    @app.websocket("/normal")
    async def normal(websocket: WebSocket) -> None:
        await websocket.accept()
        await websocket.close()

    @app.websocket("/coded")
    async def coded(websocket: WebSocket) -> None:
        await websocket.accept()
        await websocket.close(4001, "bye")

    @app.websocket("/denied")
    async def denied(websocket: WebSocket) -> None:
        raise HTTPError(401, "no", headers={"WWW-Authenticate": "Bearer"})

    client = serve(app)
    asgi = client.interface == "asgi"
    caplog.set_level("WARNING", logger="hasten.websocket")
    with client.websocket_connect("/normal") as ws, pytest.raises(WebSocketDisconnect) as closed:
        ws.receive_text()
    assert closed.value.code == (1000 if asgi else 1005)
    assert caplog.records == []  # a plain close loses nothing the client reads
    for _ in range(2):
        with client.websocket_connect("/coded") as ws, pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_text()
        assert (closed.value.code, closed.value.reason) == ((4001, "bye") if asgi else (1005, ""))
        with pytest.raises(WebSocketDenialResponse) as refused:
            client.websocket_connect("/denied")
        assert refused.value.status_code == 401
        assert refused.value.content == (b'{"detail":"no"}' if asgi else b"")
        assert refused.value.headers.get("www-authenticate") == ("Bearer" if asgi else None)
    said = [(record.levelname, record.getMessage()) for record in caplog.records]
    fix = "serve the app over ASGI (hasten run --interface asgi) if its WebSocket clients read them"
    assert said == (
        []
        if asgi
        else [
            (
                "WARNING",
                "Granian's RSGI cannot send a WebSocket close code and reason "
                f"(/coded closed with 4001 'bye'; the client saw 1005): {fix}; said once",
            ),
            (
                "WARNING",
                "Granian's RSGI cannot send the headers and body of a refused WebSocket "
                f"handshake (/denied refused with 401; the client got the status alone): {fix}; "
                "said once",
            ),
        ]
    )


def test_starlettes_message_api_receive_send_and_states(serve: ClientFactory) -> None:
    app = App()
    seen: list[Any] = []

    @app.websocket("/raw")
    async def raw(websocket: WebSocket) -> None:
        seen.append(websocket.client_state)
        seen.append(await websocket.receive())
        await websocket.send({"type": "websocket.accept"})
        seen.append(websocket.application_state)
        seen.append(await websocket.receive())
        seen.append(await websocket.receive())
        await websocket.send({"type": "websocket.send", "text": "text back"})
        await websocket.send({"type": "websocket.send", "bytes": b"bytes back"})
        with pytest.raises(RuntimeError, match="should be"):
            await websocket.send_json({}, mode="other")  # type: ignore[arg-type]
        seen.append(await websocket.receive_json(mode="binary"))
        seen.append(await websocket.receive())
        seen.append(websocket.client_state)

    client = serve(app)
    with client.websocket_connect("/raw") as ws:
        ws.send_text("hi")
        ws.send_bytes(b"\x00")
        assert (ws.receive_text(), ws.receive_bytes()) == ("text back", b"bytes back")
        ws.send_bytes(b'{"a": 1}')
        ws.close(4001)
    assert seen == [
        WebSocketState.CONNECTING,
        {"type": "websocket.connect"},
        WebSocketState.CONNECTED,
        {"type": "websocket.receive", "text": "hi"},
        {"type": "websocket.receive", "bytes": b"\x00"},
        {"a": 1},
        # RSGI carries no close code.
        {
            "type": "websocket.disconnect",
            "code": 4001 if client.interface == "asgi" else 1005,
            "reason": "",
        },
        WebSocketState.DISCONNECTED,
    ]


def test_a_denial_response_sent_as_asgi_messages() -> None:
    # ASGI's websocket.http.response (RSGI sends the status alone: test_refusals above).
    app = App()

    @app.websocket("/denied")
    async def denied(websocket: WebSocket) -> None:
        assert await websocket.receive() == {"type": "websocket.connect"}
        start = {
            "type": "websocket.http.response.start",
            "status": 404,
            "headers": [(b"x-why", b"gone")],
        }
        await websocket.send(start)
        await websocket.send(
            {"type": "websocket.http.response.body", "body": b"not ", "more_body": True}
        )
        await websocket.send({"type": "websocket.http.response.body", "body": b"here"})

    with (
        TestClient(app, interface="asgi") as client,
        pytest.raises(WebSocketDenialResponse) as denial,
        client.websocket_connect("/denied"),
    ):
        pass
    assert (denial.value.status_code, denial.value.content, denial.value.headers["x-why"]) == (
        404,
        b"not here",
        "gone",
    )


def _by_hand(handle: Any) -> Any:
    """A raw ASGI app that makes its WebSocket by hand, as Starlette's docs show."""

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        await handle(WebSocket(scope, receive=receive, send=send))

    return app


def test_a_websocket_made_by_hand_closes_before_accept_with_its_code() -> None:
    async def handle(websocket: WebSocket) -> None:
        assert await websocket.receive() == {"type": "websocket.connect"}
        await websocket.close(1001)

    with pytest.raises(WebSocketDisconnect) as closed:
        TestClient(_by_hand(handle)).websocket_connect("/")
    assert closed.value.code == 1001


@pytest.mark.parametrize("kind", ["stream", "file"])
def test_a_denial_response_sends_a_streamed_or_file_body(kind: str, tmp_path: Any) -> None:
    (tmp_path / "denied.txt").write_bytes(b"not you")

    async def chunks() -> AsyncIterator[str]:
        yield "not "
        yield "you"

    async def handle(websocket: WebSocket) -> None:
        response = (
            StreamingResponse(chunks(), status_code=403)
            if kind == "stream"
            else FileResponse(tmp_path / "denied.txt", status_code=403)
        )
        await websocket.send_denial_response(response)

    with pytest.raises(WebSocketDenialResponse) as denied:
        TestClient(_by_hand(handle)).websocket_connect("/")
    assert (denied.value.status_code, denied.value.content) == (403, b"not you")


def test_a_message_of_the_wrong_type_is_an_error_to_receive() -> None:
    failures: list[str] = []

    async def handle(websocket: WebSocket) -> None:
        await websocket.accept()
        try:
            await websocket.receive_text()
        except RuntimeError as error:
            failures.append(str(error))
            await websocket.close()

    with TestClient(_by_hand(handle)).websocket_connect("/") as session:
        session.send({"type": "websocket.connect"})
        with pytest.raises(WebSocketDisconnect):
            session.receive_text()
    assert failures == [
        'Expected ASGI message "websocket.receive" or "websocket.disconnect", but got '
        "'websocket.connect'"
    ]


def test_a_close_after_the_client_left_is_quiet_and_a_denial_keeps_its_order(
    serve: ClientFactory,
) -> None:
    app = App()
    outcome: list[str] = []

    @app.websocket("/left")
    async def left(websocket: WebSocket) -> None:
        await websocket.accept()
        with pytest.raises(WebSocketDisconnect):
            await websocket.receive_text()
        await websocket.close()  # the client has gone: nothing to send, no error
        outcome.append("closed quietly")

    @app.websocket("/deny")
    async def deny(websocket: WebSocket) -> None:
        start = {"type": "websocket.http.response.start", "status": 401, "headers": []}
        await websocket.send(start)
        with pytest.raises(RuntimeError, match=r'Expected ASGI message "websocket\.http'):
            await websocket.send(start)
        await websocket.send({"type": "websocket.http.response.body", "body": b"no"})
        outcome.append("denied")

    client = serve(app)
    with client.websocket_connect("/left") as ws:
        ws.close()
    with pytest.raises(WebSocketDenialResponse) as denied:
        client.websocket_connect("/deny")
    assert denied.value.status_code == 401
    assert outcome == ["closed quietly", "denied"]


def test_a_handlers_close_after_hasten_closed_the_socket_is_no_error(
    serve: ClientFactory,
) -> None:
    app = App(websocket_idle_timeout=0.05)
    ended: list[str] = []

    @app.websocket("/ws")
    async def handler(websocket: WebSocket) -> None:
        await websocket.accept()
        try:
            await websocket.receive_text()  # silent too long: hasten closes it with 1001
        except WebSocketDisconnect as gone:
            ended.append(f"gone {gone.code}")
        finally:
            await websocket.close()  # after hasten's close: nothing to do, no error
            ended.append("closed")

    with serve(app).websocket_connect("/ws") as ws:
        assert ws.receive()["type"] == "websocket.close"
    assert ended == ["gone 1001", "closed"]
