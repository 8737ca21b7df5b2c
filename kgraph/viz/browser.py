"""Checking a page in a real browser: headless Chromium driven over the DevTools protocol.

No browser-automation package: Chromium's ``--remote-debugging-pipe`` speaks the DevTools
protocol as NUL-separated JSON on file descriptors 3 (commands in) and 4 (events and
replies out), which the standard library handles. One :func:`check_page` call opens the
page from disk, waits until the page script reports it has drawn (``data-ready``), and
returns what happened: every network request the page made besides its own file, page
errors and console/CSP errors, JavaScript dialogs (an injected ``alert`` would open one),
the node and edge counts the page reports, and a screenshot.

Used by the tests and ``scripts/bench_viz.py``; Chromium is Debian's ``chromium`` package.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgraph.errors import KgraphError

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
READY_TIMEOUT_S = 60.0


class BrowserError(KgraphError):
    """Chromium could not be started or did not answer."""


def find_chromium() -> str | None:
    """The path of a Chromium (or Chrome) executable, or None."""
    override = os.environ.get("KGRAPH_CHROMIUM")
    if override:
        return override if Path(override).exists() else None
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    return None


@dataclass
class PageCheck:
    """What a browser saw while loading a page."""

    url: str
    requests: list[str] = field(default_factory=list)  # every request but the page itself
    exceptions: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    report: dict[str, Any] = field(default_factory=dict)  # window.kgraphViz.report()
    attributes: dict[str, str] = field(default_factory=dict)  # <html data-*>
    title: str = ""
    wall_ms: float = 0.0  # navigation to data-ready, as measured from outside
    screenshot: Path | None = None
    script_result: Any = None  # the value of ``script``

    @property
    def errors(self) -> list[str]:
        page = list(self.report.get("errors", []))
        return self.exceptions + self.console_errors + page


class _Pipe:
    """The DevTools protocol over Chromium's pipe: commands by id, events queued."""

    def __init__(self, process: subprocess.Popen[bytes], send_fd: int, receive_fd: int) -> None:
        self.process = process
        self.send_fd = send_fd
        self.receive_fd = receive_fd
        self.next_id = 0
        self.messages: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.events: list[dict[str, Any]] = []
        self.on_event: Callable[[dict[str, Any]], None] = lambda _e: None
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        buffer = b""
        while True:
            try:
                chunk = os.read(self.receive_fd, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                self.messages.put(None)
                return
            buffer += chunk
            while b"\0" in buffer:
                raw, buffer = buffer.split(b"\0", 1)
                self.messages.put(json.loads(raw))

    def send(
        self, method: str, params: dict[str, Any] | None = None, *, session: str | None = None
    ) -> int:
        """Send a command without waiting; its reply is skipped when it comes."""
        self.next_id += 1
        message: dict[str, Any] = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.send_fd, json.dumps(message).encode() + b"\0")
        return self.next_id

    def call(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        session: str | None = None,
        timeout: float = 30.0,
    ) -> dict[str, Any]:
        """Send a command and wait for its reply, handing events to ``on_event`` meanwhile."""
        sent = self.send(method, params, session=session)
        deadline = time.monotonic() + timeout
        while True:
            reply = self._next(deadline, method)
            if reply.get("id") == sent:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error'].get('message')}")
                result: dict[str, Any] = reply.get("result", {})
                return result
            if "method" in reply:
                self.events.append(reply)
                self.on_event(reply)

    def _next(self, deadline: float, waiting_for: str) -> dict[str, Any]:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise BrowserError(f"Chromium did not answer {waiting_for} in time")
        try:
            message = self.messages.get(timeout=remaining)
        except queue.Empty as exc:
            raise BrowserError(f"Chromium did not answer {waiting_for} in time") from exc
        if message is None:
            raise BrowserError(f"Chromium exited while waiting for {waiting_for}")
        return message


def _high_fd(fd: int) -> int:
    """A copy of ``fd`` numbered 10 or above, so moving it to 3 or 4 never clobbers another."""
    copy = fcntl.fcntl(fd, fcntl.F_DUPFD, 10)
    os.close(fd)
    return copy


def _launch(executable: str, profile: Path, width: int, height: int) -> _Pipe:
    to_browser_r, to_browser_w = os.pipe()
    from_browser_r, from_browser_w = os.pipe()
    child_in, child_out = _high_fd(to_browser_r), _high_fd(from_browser_w)

    def wire() -> None:  # in the child, before exec: the pipe on fds 3 and 4
        os.dup2(child_in, 3)
        os.dup2(child_out, 4)

    args = [
        executable,
        "--headless",
        "--remote-debugging-pipe",
        "--no-sandbox",  # root in CI containers; the page is our own file
        "--disable-gpu",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-extensions",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-default-apps",
        "--mute-audio",
        "--hide-scrollbars",
        f"--window-size={width},{height}",
        f"--user-data-dir={profile}",
        "about:blank",
    ]
    process = subprocess.Popen(
        args,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        pass_fds=(3, 4),
        preexec_fn=wire,
    )
    os.close(child_in)
    os.close(child_out)
    return _Pipe(process, to_browser_w, from_browser_r)


def _record(check: PageCheck, event: dict[str, Any]) -> None:
    method, params = event.get("method"), event.get("params", {})
    if method == "Network.requestWillBeSent":
        url = params.get("request", {}).get("url", "")
        if url != check.url:
            check.requests.append(url)
    elif method == "Runtime.exceptionThrown":
        details = params.get("exceptionDetails", {})
        text = details.get("exception", {}).get("description") or details.get("text", "")
        check.exceptions.append(str(text))
    elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
        args = params.get("args", [])
        check.console_errors.append(
            " ".join(str(a.get("value", a.get("description"))) for a in args)
        )
    elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
        check.console_errors.append(str(params["entry"].get("text", "")))
    elif method == "Page.javascriptDialogOpening":
        check.dialogs.append(f"{params.get('type')}: {params.get('message')}")


def check_page(
    page: Path,
    *,
    screenshot: Path | None = None,
    executable: str | None = None,
    width: int = 1400,
    height: int = 900,
    script: str | None = None,
    timeout: float = READY_TIMEOUT_S,
    fragment: str = "",
) -> PageCheck:
    """Load ``page`` in headless Chromium and report what happened (see module docstring).

    ``script`` (JavaScript) runs once the page is ready, before the report is read: a test
    can click, search or select through ``window.kgraphViz``. ``fragment`` is the URL's
    hash to open the page with (a link to one node).
    """
    executable = executable or find_chromium()
    if executable is None:
        raise BrowserError("no Chromium found (Debian: apt-get install -y chromium)")
    check = PageCheck(url=page.resolve().as_uri())
    with tempfile.TemporaryDirectory(prefix="kgraph-chromium-") as profile:
        pipe = _launch(executable, Path(profile), width, height)
        try:
            _run(pipe, check, screenshot, script, timeout, width, height, fragment)
        finally:
            _close(pipe)
    return check


def _run(
    pipe: _Pipe,
    check: PageCheck,
    screenshot: Path | None,
    script: str | None,
    timeout: float,
    width: int,
    height: int,
    fragment: str = "",
) -> None:
    target = pipe.call("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = pipe.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]

    def on_event(event: dict[str, Any]) -> None:
        if event.get("sessionId") != session:
            return
        _record(check, event)
        if event.get("method") == "Page.javascriptDialogOpening":  # never leave it blocking
            pipe.send("Page.handleJavaScriptDialog", {"accept": False}, session=session)

    pipe.on_event = on_event
    for domain in ("Page", "Runtime", "Log", "Network"):
        pipe.call(f"{domain}.enable", session=session)
    pipe.call(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
        session=session,
    )
    started = time.monotonic()
    url = check.url + (f"#{fragment}" if fragment else "")
    pipe.call("Page.navigate", {"url": url}, session=session)
    deadline = started + timeout
    # The old document (about:blank) answers until the new one exists: ask for the page's own.
    state = (
        f"location.href.split('#')[0] === {json.dumps(check.url)} && document.documentElement ? "
        "[document.documentElement.dataset.ready, document.documentElement.dataset.errors] : []"
    )
    while True:
        ready, errors = ([*(evaluate(pipe, session, state) or []), None, None])[:2]
        if ready == "1" or int(errors or 0):
            break
        if time.monotonic() > deadline:
            raise BrowserError(f"the page did not report ready within {timeout:.0f} s")
        time.sleep(0.05)
    check.wall_ms = (time.monotonic() - started) * 1000
    if script:
        check.script_result = evaluate(pipe, session, script)
    check.report = (
        evaluate(pipe, session, "window.kgraphViz ? window.kgraphViz.report() : {}") or {}
    )
    check.attributes = (
        evaluate(pipe, session, "Object.assign({}, document.documentElement.dataset)") or {}
    )
    check.title = str(evaluate(pipe, session, "document.title") or "")
    if screenshot is not None:
        data = pipe.call("Page.captureScreenshot", {"format": "png"}, session=session)["data"]
        screenshot.parent.mkdir(parents=True, exist_ok=True)
        screenshot.write_bytes(base64.b64decode(data))
        check.screenshot = screenshot


def evaluate(pipe: _Pipe, session: str, expression: str) -> Any:
    """The value of ``expression`` in the page (JSON-serialisable values only)."""
    result = pipe.call(
        "Runtime.evaluate",
        {"expression": expression, "returnByValue": True, "awaitPromise": True},
        session=session,
    )
    if "exceptionDetails" in result:
        details = result["exceptionDetails"]
        text = details.get("exception", {}).get("description") or details.get("text")
        raise BrowserError(f"page script failed: {text}")
    return result.get("result", {}).get("value")


def _close(pipe: _Pipe) -> None:
    with contextlib.suppress(BrowserError):
        pipe.call("Browser.close", timeout=5)
    try:
        pipe.process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pipe.process.kill()
        pipe.process.wait()
    for fd in (pipe.send_fd, pipe.receive_fd):
        with contextlib.suppress(OSError):
            os.close(fd)
