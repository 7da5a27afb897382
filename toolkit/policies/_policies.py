"""Policies around a call: approval, concurrency and rate limits, retries.

A tool's policies are options of the tool (`requires_approval`,
`max_concurrency`, `rate`, `retries`, `retry_on`); a set may add approval
for all of its tools (`ToolSet(requires_approval=...)`). They are applied
by the call itself (`_call.py`), between binding the arguments and calling
the code, so that `execute`, `run`, the providers' `handle` and the MCP
server apply them alike:

    approval     a call that needs it runs only when the host approved
                 exactly these arguments, once; otherwise its result says
                 `needs_approval` (or the host is asked, when it can be:
                 a host with an `approve` method, such as the MCP server,
                 which asks its client);
    rate         a call over the tool's rate is an error result that says
                 when to retry;
    concurrency  a call waits for one of the tool's slots, never longer than
                 the tool's timeout;
    retries      a call of an idempotent tool that raised a retryable error
                 runs again, after a growing wait with jitter; the model
                 sees only the last outcome, the `toolkit` logger each try.

An approval is bound to the tool's name and a hash of its canonical JSON
arguments: it cannot move to other arguments, and it is used up by the call
it lets through. A set with an `approval_key` signs its approval ids
(HMAC-SHA256), so that a host that keeps no state can hand back the id it
was given and another process with the same key can check it; such a token
is single-use within a process and expires after the set's `approval_ttl`
seconds (an hour by default), in every process, the issuing one included.
An id or token is parsed strictly (its own alphabet, ASCII digits, a
bounded length): one that is not well formed is refused and never kept.
"""

from __future__ import annotations

import re
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final, Protocol

from toolkit.core._exceptions import ToolDefinitionError, ToolError
from toolkit.core._record import Record
from toolkit.run._running import finish_wait, is_seconds

if TYPE_CHECKING:
    from toolkit.core._finding import Finding
    from toolkit.run._context import Context
    from toolkit.run._running import ThreadPool
    from toolkit.run._tracing import Redact
    from toolkit.values._results import ToolResult

__all__ = [
    "ApprovalStore",
    "Guarded",
    "Policy",
    "Rate",
    "Runner",
    "SetPolicy",
    "check_policies",
    "policy_findings",
    "shown",
    "store_of",
]

_set = object.__setattr__

ToolApproval = Callable[[dict[str, Any], "Context[Any]"], bool]
"""`requires_approval=` of a tool: `(arguments, context) -> bool`."""

SetRule = Callable[..., bool]
"""`requires_approval=` of a set: `(tool, arguments, context) -> bool` (`ToolSet` types its tool)."""

_UNITS: Final = {"second": 1.0, "minute": 60.0, "hour": 3600.0, "day": 86400.0}
_MAX_PENDING: Final = 10_000  # approvals a set keeps; the oldest go first
_NONCE_CHARS: Final = 16  # secrets.token_urlsafe(12)
_TOKEN: Final = re.compile(
    rf"([A-Za-z0-9_-]{{{_NONCE_CHARS}}})\.([0-9]{{1,15}})\.([0-9a-f]{{64}})", re.ASCII
)
"""A signed approval id: nonce, expiry (whole seconds of the epoch), HMAC-SHA256 in hex."""
_clock: Callable[[], float] = time.monotonic  # replaced by tests with a fake clock
_wall: Callable[[], float] = time.time


def _jitter(ceiling: float) -> float:
    """A wait drawn evenly from 0 to `ceiling` (replaced by tests)."""
    import secrets

    return secrets.SystemRandom().uniform(0, ceiling)


class Rate(Record):
    """At most `calls` calls in any `seconds`, per tool (or per tool and agent).

    `Rate.parse("10/minute")` reads the short form that `@tool(rate=...)`
    takes: a count, a slash and `second`, `minute`, `hour` or `day`.

    Attributes:
        calls: How many calls the window admits.
        seconds: The window's length.
        per_agent: Count each `agent_id`'s calls apart.
    """

    __match_args__ = ("calls", "seconds", "per_agent")
    __slots__ = ("calls", "per_agent", "seconds")
    calls: int
    seconds: float
    per_agent: bool

    def __init__(self, calls: int, seconds: float, per_agent: bool = False) -> None:
        if type(calls) is not int or calls < 1:
            msg = f"Rate needs a positive whole number of calls, not {calls!r}"
            raise ToolDefinitionError(msg)
        if not is_seconds(seconds):
            msg = f"Rate needs a positive number of seconds, not {seconds!r}"
            raise ToolDefinitionError(msg)
        _set(self, "calls", calls)
        _set(self, "seconds", float(seconds))
        _set(self, "per_agent", bool(per_agent))

    @classmethod
    def parse(cls, text: str, *, per_agent: bool = False) -> Rate:
        """`"10/minute"` → `Rate(10, 60.0)`.

        Raises:
            ToolDefinitionError: `text` is not `<count>/<unit>`.
        """
        count, _, unit = text.partition("/")
        seconds = _UNITS.get(unit.strip().rstrip("s"))
        if not count.strip().isdigit() or seconds is None:
            msg = f"rate={text!r} is not a rate. Write it as '10/minute' (second, minute, hour or day), or pass Rate(calls, seconds)"
            raise ToolDefinitionError(msg)
        return cls(int(count), seconds, per_agent)

    def __str__(self) -> str:
        for unit, seconds in _UNITS.items():
            if seconds == self.seconds:
                window = unit
                break
        else:
            window = f"{self.seconds:g} seconds"
        return f"{self.calls}/{window}" + (" per agent" if self.per_agent else "")


class Guarded(Protocol):
    """What the policies read of a tool: its name and its policy options (a `Tool` has them all)."""

    @property
    def name(self) -> str: ...

    @property
    def requires_approval(self) -> bool | ToolApproval: ...

    @property
    def max_concurrency(self) -> int | None: ...

    @property
    def rate(self) -> Rate | None: ...

    @property
    def retries(self) -> int: ...

    @property
    def retry_on(self) -> tuple[type[BaseException], ...]: ...

    @property
    def idempotent(self) -> bool | None: ...

    @property
    def timeout(self) -> float | None: ...


class Runner(Protocol):
    """What the gate uses of the runner of a tool's calls (`ToolRunner`): its tool, its policy, the call."""

    @property
    def tool(self) -> Guarded: ...

    @property
    def name(self) -> str: ...

    @property
    def policy(self) -> Policy | None: ...

    async def called(
        self,
        bound: dict[str, Any],
        agent_id: str,
        call_id: str,
        formatter: Any,
        pool: ThreadPool | None,
        blocking: bool,
    ) -> ToolResult: ...


def check_policies(tool: Guarded) -> None:
    """Refuse policies that cannot work, when the tool is made.

    Raises:
        ToolDefinitionError: Names the option and the fix.
    """
    name = tool.name
    approval = tool.requires_approval
    if not isinstance(approval, bool) and not callable(approval):
        msg = f"requires_approval of tool {name!r} is {approval!r}. Pass True, False, or a function (arguments, context) -> bool"
        raise ToolDefinitionError(msg)
    limit = tool.max_concurrency
    if limit is not None and (type(limit) is not int or limit < 1):
        msg = f"max_concurrency of tool {name!r} is {limit!r}. Pass a positive whole number, or None"
        raise ToolDefinitionError(msg)
    rate = tool.rate
    if isinstance(rate, str):
        tool.__dict__["rate"] = Rate.parse(rate)
    elif rate is not None and not isinstance(rate, Rate):
        msg = f"rate of tool {name!r} is {rate!r}. Pass a string such as '10/minute', a Rate, or None"
        raise ToolDefinitionError(msg)
    retries = tool.retries
    if type(retries) is not int or retries < 0:
        msg = f"retries of tool {name!r} is {retries!r}. Pass a whole number of tries after the first"
        raise ToolDefinitionError(msg)
    retry_on = tool.retry_on
    if not isinstance(retry_on, tuple) or not all(
        isinstance(kind, type) and issubclass(kind, BaseException) for kind in retry_on
    ):
        msg = f"retry_on of tool {name!r} is {retry_on!r}. Pass a tuple of exception classes"
        raise ToolDefinitionError(msg)
    if retry_on and not retries:
        msg = f"Tool {name!r} has retry_on but retries=0, so no call would run again. Give retries=N (the tries after the first), or drop retry_on"
        raise ToolDefinitionError(msg)
    if (retries or retry_on) and tool.idempotent is not True:
        msg = f"Tool {name!r} has retries but is not marked idempotent: a retried call that had taken effect would take effect twice. Mark it idempotent=True if repeating a call is safe, or drop retries"
        raise ToolDefinitionError(msg)


# ---------------------------------------------------------------- approvals


class ApprovalStore:
    """A set's approvals: the calls waiting for one, and the decisions not used yet.

    Args:
        key: Sign approval ids with this key (HMAC-SHA256), or None for
            random ids that only this store knows.
        ttl: Seconds a signed approval stays valid.
    """

    def __init__(self, key: bytes | None = None, ttl: float = 3600.0) -> None:
        self.key = key
        self.ttl = ttl
        self._lock = threading.Lock()
        # id → [tool, digest, decision, expires]; decision is None (waiting),
        # True, or a denial reason; tool and digest are None for a signed token
        # handed back (checked against the call that uses it); expires is the
        # epoch second a signed id ends, else None
        self._entries: OrderedDict[str, list[Any]] = OrderedDict()
        self._spent: OrderedDict[str, None] = OrderedDict()  # signed nonces used here

    def request(self, tool: str, digest: str) -> str:
        """A new approval id for a call of `tool` with arguments of hash `digest`."""
        import secrets

        nonce = secrets.token_urlsafe(12)
        expires: int | None = None
        if self.key is None:
            ident = nonce
        else:
            expires = int(_wall() + self.ttl)
            body = f"{nonce}.{expires}"
            ident = f"{body}.{self._mac(tool, digest, body)}"
        with self._lock:
            self._entries[ident] = [tool, digest, None, expires]
            while len(self._entries) > _MAX_PENDING:
                self._entries.popitem(last=False)
        return ident

    def decide(self, ident: object, decision: bool | str) -> bool:
        """Record the host's decision on `ident`: True approves, False or a reason denies.

        Returns whether `ident` is an approval this store handed out (or, with
        a key, a well-formed token that has not expired nor been used here:
        its signature is checked against the call it is used for). Anything
        else (another type, text of the wrong form or length) is refused and
        not kept.
        """
        if type(ident) is not str or len(ident) > 200:
            return False
        if decision is False:
            decision = ""
        elif decision is not True and type(decision) is not str:
            decision = str(decision)
        token = _TOKEN.fullmatch(ident) if self.key is not None else None
        with self._lock:
            entry = self._entries.get(ident)
            if entry is not None:
                if entry[3] is not None and entry[3] < _wall():
                    del self._entries[ident]
                    return False
                entry[2] = decision
                return True
            if token is None:
                return False
            nonce, expires = token.group(1), int(token.group(2))
            if expires < _wall() or nonce in self._spent:
                return False
            self._entries[ident] = [None, None, decision, expires]
            while len(self._entries) > _MAX_PENDING:
                self._entries.popitem(last=False)
            return True

    def take(self, tool: str, digest: str) -> bool | str | None:
        """The decision for a call of `tool` with arguments `digest`, used up; None if there is none.

        A signed approval past its expiry is dropped, whichever process
        issued it.
        """
        now = _wall()
        with self._lock:
            expired = []
            found: tuple[str, bool | str] | None = None
            for ident, (named, hashed, decision, expires) in self._entries.items():
                if expires is not None and expires < now:
                    expired.append(ident)
                    continue
                if decision is None:
                    continue
                if (
                    named is None
                ):  # a signed token handed back: check it against this call
                    if not self._valid_token(ident, tool, digest):
                        continue
                elif (named, hashed) != (tool, digest):
                    continue
                found = ident, decision
                break
            for ident in expired:
                del self._entries[ident]
            if found is None:
                return None
            ident, decision = found
            del self._entries[ident]
            if self.key is not None:
                self._spend(ident)
            return True if decision is True else str(decision)

    def _valid_token(self, ident: str, tool: str, digest: str) -> bool:
        token = _TOKEN.fullmatch(ident)
        if token is None:  # cannot happen: decide keeps only well-formed tokens
            return False
        nonce, expires, mac = token.groups()
        if int(expires) < _wall() or nonce in self._spent:
            return False
        import hmac

        expected = self._mac(tool, digest, f"{nonce}.{expires}")
        return hmac.compare_digest(mac, expected)

    def _spend(self, ident: str) -> None:
        self._spent[ident.split(".", 1)[0]] = None
        while len(self._spent) > _MAX_PENDING * 10:
            self._spent.popitem(last=False)

    def _mac(self, tool: str, digest: str, body: str) -> str:
        import hashlib
        import hmac

        assert self.key is not None  # only called with a key
        message = f"{tool}\x00{digest}\x00{body}".encode("utf-8", "surrogatepass")
        return hmac.new(self.key, message, hashlib.sha256).hexdigest()


_STORE_LOCK = threading.Lock()


class SetPolicy:
    """What a set adds to its calls: the approval rule, key and lifetime, the store of approvals (made on first use), what spans keep."""

    __slots__ = ("key", "rule", "store", "trace_content", "ttl")

    def __init__(
        self,
        rule: bool | SetRule,
        key: bytes | None,
        trace_content: bool | Redact = False,
        ttl: float = 3600.0,
    ) -> None:
        if not isinstance(rule, bool) and not callable(rule):
            msg = f"requires_approval={rule!r}. Pass True, False, or a function (tool, arguments, context) -> bool"
            raise ToolDefinitionError(msg)
        if key is not None and (not isinstance(key, bytes) or len(key) < 16):
            msg = "approval_key must be bytes of at least 16 (e.g. secrets.token_bytes(32)), or None"
            raise ToolDefinitionError(msg)
        if not is_seconds(ttl):
            msg = f"approval_ttl={ttl!r}. Pass a positive number of seconds (default 3600)"
            raise ToolDefinitionError(msg)
        if not isinstance(trace_content, bool) and not callable(trace_content):
            msg = f"trace_content={trace_content!r}. Pass True, False, or a function (tool_name, value) -> value"
            raise ToolDefinitionError(msg)
        self.rule = rule
        self.key = key
        self.ttl = float(ttl)
        self.store: ApprovalStore | None = None
        self.trace_content = trace_content


def store_of(approvals: SetPolicy) -> ApprovalStore:
    """The set's store of approvals, made on first use."""
    with _STORE_LOCK:
        if approvals.store is None:
            approvals.store = ApprovalStore(approvals.key, approvals.ttl)
        return approvals.store


def digest_of(arguments: Mapping[str, Any]) -> str:
    """A hash of the arguments' canonical JSON: equal for equal JSON values only.

    Never raises: any text (lone surrogates included) is hashed as its code
    points; a value no JSON text holds (circular, nested too deep) gets a
    digest of its own that no other call shares, so its call cannot be
    approved by another's approval.
    """
    import hashlib
    import json

    try:
        text = json.dumps(
            arguments,
            sort_keys=True,
            separators=(",", ":"),
            ensure_ascii=False,
            default=repr,
        )
    except (TypeError, ValueError, RecursionError):
        import secrets

        return "unmatched-" + secrets.token_hex(32)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


# ---------------------------------------------------------------- limits


class _Slots:
    """At most `size` calls of a tool at once, from any thread or event loop."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.busy = 0
        self._lock = threading.Lock()
        self._waiters: deque[Callable[[], None]] = deque()

    async def take(self, timeout: float | None) -> bool:
        """Take a slot, waiting at most `timeout` seconds; False when none came in time."""
        import asyncio

        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[None] = loop.create_future()

        def wake() -> None:
            loop.call_soon_threadsafe(finish_wait, waiter)

        if self._claimed(wake):
            return True
        try:
            await asyncio.wait_for(waiter, timeout)
        except asyncio.TimeoutError:
            self._drop(wake)
            return False
        except BaseException:  # cancelled while waiting
            self._drop(wake)
            raise
        return True

    def take_blocking(self, timeout: float | None) -> bool:
        """`take` for sync code: blocks the thread."""
        event = threading.Event()
        if self._claimed(event.set) or event.wait(timeout):
            return True
        self._drop(event.set)
        return False

    def _claimed(self, wake: Callable[[], None]) -> bool:
        """Take a free slot now (True), or queue `wake`, called when a slot is handed to it."""
        with self._lock:
            if self.busy < self.size:
                self.busy += 1
                return True
            self._waiters.append(wake)
        return False

    def _drop(self, wake: Callable[[], None]) -> None:
        """A waiter gave up: forget it or, if a slot was handed to it meanwhile, pass the slot on."""
        with self._lock:
            try:
                self._waiters.remove(wake)
                return
            except ValueError:  # already handed a slot
                pass
        self.give_back()

    def give_back(self) -> None:
        with self._lock:
            if self._waiters:  # the slot goes straight to the first waiter
                self._waiters.popleft()()
                return
            self.busy -= 1


class _Window:
    """The start times of the calls in the rate's window, per key."""

    def __init__(self, rate: Rate) -> None:
        self.rate = rate
        self._lock = threading.Lock()
        self._starts: dict[str, deque[float]] = {}

    def admit(self, agent_id: str) -> float:
        """Count a call now and return 0, or return the seconds until one would be admitted."""
        rate = self.rate
        key = agent_id if rate.per_agent else ""
        now = _clock()
        with self._lock:
            starts = self._starts.setdefault(key, deque())
            while starts and starts[0] <= now - rate.seconds:
                starts.popleft()
            if len(starts) < rate.calls:
                starts.append(now)
                return 0.0
            return starts[0] + rate.seconds - now


# ---------------------------------------------------------------- one tool


class Policy:
    """The policies of one tool, with their state (slots, rate window)."""

    def __init__(self, tool: Guarded, shared: Policy | None = None) -> None:
        self.name = tool.name
        self.approval: bool | ToolApproval = tool.requires_approval
        self.timeout = tool.timeout
        self.slots: _Slots | None
        self.window: _Window | None
        if shared is not None:  # a renamed copy of a tool shares its limits
            self.slots, self.window = shared.slots, shared.window
        else:
            self.slots = _Slots(tool.max_concurrency) if tool.max_concurrency else None
            self.window = _Window(tool.rate) if isinstance(tool.rate, Rate) else None
        self.retries: int = tool.retries
        self.retry_on: tuple[type[BaseException], ...] = tool.retry_on

    # -- rate

    def over_rate(self, agent_id: str) -> ToolResult | None:
        """The error result of a call over the tool's rate, or None to go on."""
        if self.window is None:
            return None
        wait = self.window.admit(agent_id)
        if wait <= 0:
            return None
        from toolkit.values._results import ToolResult

        return ToolResult.error(
            f'Tool "{self.name}" is over its rate limit of {self.window.rate}. '
            f"Retry after {max(wait, 0.1):.1f} seconds."
        )

    def full(self) -> ToolResult:
        from toolkit.values._results import ToolResult

        size = self.slots.size if self.slots else 0
        running = "1 call of it is" if size == 1 else f"{size} calls of it are"
        return ToolResult.error(
            f'Tool "{self.name}" is busy: {running} running '
            f"and none finished within {self.timeout:g} seconds. Try again later."
        )

    # -- retries

    def retryable(self, error: BaseException, tries: int) -> bool:
        """Whether a call that raised `error` on try `tries` (from 1) runs again."""
        if tries > self.retries:
            return False
        if isinstance(error, ToolError):
            return bool(getattr(error, "retry", False))
        return isinstance(error, self.retry_on) if self.retry_on else False

    def backoff(self, tries: int) -> float:
        """The wait before try `tries + 1`: doubling from 0.2 s up to 10 s, with full jitter."""
        return _jitter(min(10.0, 0.2 * 2 ** (tries - 1)))


# ---------------------------------------------------------------- shown


def shown(tool: Guarded) -> str | None:
    """The tool's policies in words (`toolkit lint`, `toolkit schema --verbose`), or None."""
    parts = []
    rule = tool.requires_approval
    if rule is True:
        parts.append("requires approval")
    elif rule is not False:
        parts.append(
            f"requires approval when {getattr(rule, '__name__', 'its rule')} says so"
        )
    if tool.max_concurrency:
        parts.append(f"at most {tool.max_concurrency} calls at once")
    if tool.rate is not None:
        parts.append(f"at most {tool.rate}")
    if tool.retries:
        on = ", ".join(kind.__name__ for kind in tool.retry_on)
        parts.append(
            f"{tool.retries} retries on ToolError(retry=True)"
            + (f", {on}" if on else "")
        )
    return "; ".join(parts) if parts else None


def policy_findings(tool: Guarded) -> list[Finding]:
    """What makes a tool's policy work against itself."""
    from toolkit.core._finding import Finding

    if tool.max_concurrency and tool.timeout is None:
        return [
            Finding(
                tool.name,
                "unbounded-wait",
                f"max_concurrency={tool.max_concurrency} without a timeout: a call may wait for a slot without end. Give the tool a timeout",
            )
        ]
    return []
