"""``Scenario``: one validated simulation point (an immutable value)."""

from __future__ import annotations

import json
import os
import tomllib
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Optional, Sequence

from .. import _core
from .errors import ScenarioError, shown
from .literal import to_literal
from .overrides import check_key, split_set

if TYPE_CHECKING:  # pragma: no cover
    from .result import Result

Override = tuple[str, str]


def _validate(text: str, overrides: Sequence[Override], origin: Optional[str] = None) -> str:
    """Canonical TOML of ``text`` with ``overrides``; core errors become
    ScenarioError (a syntax error's message starts with ``origin``, the file of ``text``, if given)."""
    try:
        return _core.validate(text, list(overrides), origin)
    except ValueError as e:
        raise ScenarioError(str(e)) from None


def anchored(overrides: Sequence[Override], canonical: str) -> tuple[Override, ...]:
    """``overrides`` with the trace file the scenario names (``traffic.trace``) as the
    absolute path the core resolved (``canonical``, its TOML), in one override at the end.

    The core takes a relative path from the scenario file's folder (or, in an override,
    from the current directory); once anchored, the text and overrides name the same
    file in any process (sweep workers, Dask workers) without the file's name or folder.
    """
    trace = tomllib.loads(canonical).get("traffic", {}).get("trace")
    if trace is None:
        return tuple(overrides)
    return (*(o for o in overrides if o[0] != "traffic.trace"), ("traffic.trace", json.dumps(trace)))


def _pair(override: Any) -> Override:
    """``(key, literal)`` from a pair or a ``"key=literal"`` string."""
    if isinstance(override, str):
        return split_set(override)
    try:
        key, value = override
    except (TypeError, ValueError):
        raise ScenarioError(f"override {override!r}: expected a (KEY, VALUE) pair or a 'KEY=VALUE' string") from None
    return str(key), str(value)


class Scenario:
    """One simulation point: scenario TOML text plus overrides, validated.

    A Scenario never changes: :meth:`with_` and :meth:`set` return new ones.
    It keeps the text it was made from and the overrides applied on top, so
    keys whose defaults derive from others (``node.requestor_input_queue_packets``
    follows ``node.input_queue_packets``) keep following them.
    """

    __slots__ = ("_text", "_overrides", "_toml", "_path", "_hash")

    def __init__(self, text: str = "", overrides: Iterable[Override] = (), *, path: Optional[str] = None):
        """Validates ``text`` with raw ``(section.key, TOML literal)`` overrides.

        Raises :class:`ScenarioError` with the core's one-line message.
        """
        ov = tuple(_pair(o) for o in overrides)
        for key, _ in ov:
            check_key(key)
        self._text = text
        self._toml = _validate(text, ov, path)
        self._overrides = anchored(ov, self._toml)
        self._path = path
        self._hash: Optional[str] = None

    # -- construction -------------------------------------------------------

    @classmethod
    def load(cls, path: "str | os.PathLike[str]") -> "Scenario":
        """Reads and validates a scenario file.

        A file that cannot be read raises :class:`ScenarioError` naming the path.
        """
        name = os.fspath(path)
        try:
            with open(name, encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            reason = e.strerror or str(e)
            raise ScenarioError(f"{shown(name)}: cannot read scenario file: {reason}") from None
        except UnicodeDecodeError:
            raise ScenarioError(f"{shown(name)}: cannot read scenario file: not UTF-8 text") from None
        return cls(text, path=name)  # (a syntax error's line and column come with the file's name)

    @classmethod
    def from_toml(cls, text: str) -> "Scenario":
        """Validates scenario TOML text (an empty string gives all defaults)."""
        return cls(text)

    def with_overrides(self, overrides: Iterable[Override | str]) -> "Scenario":
        """A new Scenario with raw ``(section.key, TOML literal)`` pairs, or
        ``"section.key=literal"`` strings, applied exactly as the CLI's
        ``--set KEY=VALUE`` (a bare word is a string)."""
        return Scenario(self._text, self._overrides + tuple(_pair(o) for o in overrides), path=self._path)

    def with_(self, **sections: Mapping[str, Any]) -> "Scenario":
        """A new Scenario with keys changed, grouped by section.

        ``s.with_(traffic={"load_mbps_per_node": 120}, network={"nodes": 16})``.
        Values are Python ``str``, ``int``, ``float`` or ``bool``.
        """
        pairs: list[Override] = []
        for section, keys in sections.items():
            if not isinstance(keys, Mapping):
                raise TypeError(
                    f"with_({section}=...): expected a dict of keys and values, got {type(keys).__name__}"
                )
            for key, value in keys.items():
                dotted = f"{section}.{key}"
                pairs.append((dotted, to_literal(dotted, value)))
        return self.with_overrides(pairs)

    def set(self, key: str, value: Any) -> "Scenario":
        """A new Scenario with one dotted key changed: ``s.set("network.nodes", 16)``."""
        check_key(key)
        return self.with_overrides([(key, to_literal(key, value))])

    # -- reading ------------------------------------------------------------

    @property
    def toml(self) -> str:
        """The canonical TOML: every key, every default filled."""
        return self._toml

    @property
    def hash(self) -> str:
        """The scenario hash results carry in their provenance."""
        if self._hash is None:
            self._hash = _core.scenario_hash(self._text, list(self._overrides))
        return self._hash

    @property
    def path(self) -> Optional[str]:
        """The file the scenario was loaded from, if any."""
        return self._path

    @property
    def text(self) -> str:
        """The scenario text as given (before overrides)."""
        return self._text

    @property
    def overrides(self) -> tuple[Override, ...]:
        """The raw overrides applied on top of :attr:`text`, in order."""
        return self._overrides

    def to_dict(self) -> dict[str, dict[str, Any]]:
        """The validated scenario as nested dicts (``None`` for keys that are off)."""
        return json.loads(_core.scenario_json(self._text, list(self._overrides)))

    def get(self, key: str) -> Any:
        """The validated value of a dotted key, e.g. ``s.get("network.nodes")``.

        Raises :class:`KeyError` for a key the scenario does not have.
        """
        section, _, name = key.partition(".")
        values = self.to_dict()
        if section not in values or name not in values[section]:
            raise KeyError(f"{key}: unknown key")
        return values[section][name]

    def run(self, progress: "bool | Callable[[float, float, int, int], None]" = False) -> "Result":
        """Runs the simulation point (in this process) and returns its :class:`Result`.

        ``progress`` is ``True`` for a progress bar on stderr (on a terminal;
        elsewhere a line every few seconds), or a callable ``(fraction,
        sim_time_ns, transactions, target_transactions)`` the core calls
        about five times a second. Ctrl-C stops the run
        (``KeyboardInterrupt``), as does any exception the callable raises.

        Before it runs, the pre-flight checks (:mod:`ringlet.api.preflight`)
        raise a :class:`~ringlet.api.preflight.PreflightWarning` for each
        reason the run may not mean what the scenario seems to ask; about a
        second in, a run estimated to take a minute or more says so the same
        way (:mod:`ringlet.api.estimate`).
        A trace-driven run whose trace and windows part
        (:attr:`Result.trace_warnings`) warns with a ``UserWarning`` each.
        """
        import warnings

        result = self._run(progress)
        for w in result.trace_warnings:
            warnings.warn(f"trace: {w}", stacklevel=2)
        return result

    def _run(self, progress: "bool | Callable[[float, float, int, int], None]" = False) -> "Result":
        """:meth:`run` without the warnings."""
        import contextlib

        from . import preflight
        from .estimate import RunEstimate
        from .result import Result

        preflight.warn(preflight.checks(self), stacklevel=2)
        # Says once, early, when the run will be long (as a warning: the CLI prints it on stderr).
        estimate = RunEstimate(lambda message: preflight.warn([message], stacklevel=1))
        if progress is True:
            from ..cli.progress import run_bar

            context = run_bar()
        elif callable(progress):
            context = contextlib.nullcontext(progress)
        else:
            context = contextlib.nullcontext(None)
        raised: list[BaseException] = []  # what the callable raised, kept apart from the model's errors

        def guarded(callback: Callable[..., Any]) -> Callable[..., None]:
            def call(*args: Any) -> None:
                try:
                    callback(*args)
                except BaseException as e:
                    raised.append(e)
                    raise
            return call

        def observed(callback: Optional[Callable[..., Any]]) -> Callable[..., None]:
            def call(*args: Any) -> None:
                estimate(*args)
                if callback is not None:
                    callback(*args)
            return call

        try:
            with context as callback:
                return Result(_core.run(self._text, list(self._overrides), guarded(observed(callback))))
        except ValueError as e:
            if raised:  # the callable's own ValueError: not a scenario problem
                raise raised[0] from None
            raise ScenarioError(str(e)) from None  # a combination of keys the model rejects

    # -- value semantics ----------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Scenario):
            return NotImplemented
        return self._toml == other._toml

    def __hash__(self) -> int:
        return hash(self._toml)

    def __repr__(self) -> str:
        d = self.to_dict()
        net, traffic = d["network"], d["traffic"]
        origin = f"{self._path!r}, " if self._path else ""
        return (
            f"Scenario({origin}{net['kind']} {net['protocol']}, nodes={net['nodes']}, "
            f"load_mbps_per_node={traffic['load_mbps_per_node']}, "
            f"priorities={traffic['priorities']}, seed={d['run']['seed']}, hash={self.hash})"
        )
