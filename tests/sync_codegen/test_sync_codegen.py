"""sync.py is generated from the async classes and must not drift from them."""

from __future__ import annotations

import inspect
import subprocess
import sys
import time
import typing
from pathlib import Path

import pytest

import tabwarden
import tabwarden.sync
from tabwarden.backends.local import LocalChromium, LocalOptions
from tabwarden.page import is_engine_side
from tabwarden.sync_codegen import (
    COMMAND,
    FACADES,
    TARGET,
    FacadeSpec,
    GenerationError,
    generate,
)

ROOT = Path(__file__).resolve().parents[2]
PAIRS = [(spec.async_type, getattr(tabwarden.sync, spec.async_type.__name__)) for spec in FACADES]


def test_sync_py_is_what_the_generator_writes():
    assert TARGET.read_text(encoding="utf-8") == generate(), (
        f"src/tabwarden/sync.py is stale (an async class changed): regenerate it with {COMMAND}"
    )


@pytest.mark.parametrize("command", [["format", "--check"], ["check"]])
def test_the_generated_source_is_as_ruff_formats_and_lints_it(command):
    # sync.py is written as ruff would format it, so formatting it never makes it stale.
    result = subprocess.run(
        [sys.executable, "-m", "ruff", *command, "--stdin-filename", str(TARGET), "-"],
        input=generate(),
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize(("async_type", "sync_type"), PAIRS, ids=lambda t: t.__name__)
def test_sync_methods_take_the_same_parameters_as_the_async_ones(async_type, sync_type):
    for name, member in inspect.getmembers(async_type, inspect.isfunction):
        if name.startswith("_") and name != "__init__":
            continue
        if is_engine_side(member):
            continue  # the engine's side of a tab: not in the sync API
        async_parameters = inspect.signature(member).parameters.values()
        sync_parameters = inspect.signature(getattr(sync_type, name)).parameters.values()
        assert [(p.name, p.kind, p.default) for p in sync_parameters] == [
            (p.name, p.kind, p.default) for p in async_parameters
        ], f"{sync_type.__name__}.{name}"
        assert inspect.getdoc(getattr(sync_type, name)) == inspect.getdoc(member)


def test_the_entry_points_take_the_async_ones_parameters():
    for name in ("launch", "attach"):
        async_parameters = inspect.signature(getattr(tabwarden, name)).parameters
        sync_parameters = inspect.signature(getattr(tabwarden.sync, name)).parameters
        assert list(sync_parameters) == list(async_parameters)
    # launch starts either engine's session; overloads tell a type checker which.
    assert inspect.signature(tabwarden.sync.launch).return_annotation == (
        "BrowserSession | FirefoxSession"
    )
    assert inspect.signature(tabwarden.sync.attach).return_annotation == "BrowserSession"
    overloads = typing.get_overloads(tabwarden.sync.launch)
    assert sorted(inspect.signature(o).return_annotation for o in overloads) == [
        "BrowserSession",
        "FirefoxSession",
    ]


async def test_every_public_attribute_of_a_live_async_object_reads_through():
    session = tabwarden.BrowserSession(LocalChromium(LocalOptions(isolated=True)))
    tab = tabwarden.Tab(session, session._services, session.supervisor, "t1", "target-1")
    manager = tabwarden.SessionManager()
    for live in (tab, session, manager):
        sync_type = getattr(tabwarden.sync, type(live).__name__)
        public = {name for name in vars(live) if not name.startswith("_")}
        assert public, type(live)
        missing = {n for n in public if not isinstance(getattr(sync_type, n, None), property)}
        assert not missing, f"sync {sync_type.__name__} lacks {missing}"


# ---- the generator on classes made for these tests ----------------------------------


class Gadget:
    """A gadget with twins."""

    def __init__(self, size: int, *, label: str | None = None) -> None:
        self.size = size
        self.label = label or "plain"
        """What the gadget is called."""

    @property
    def twin(self) -> Gadget | None:
        return None

    async def grow(self, by: int = 1_000, *, copies: int = 2) -> list[Gadget]:
        """Make bigger copies."""
        return []

    def pair(self, other: Gadget) -> None:
        pass


class Clock:
    def __init__(self) -> None:
        self.started = time.monotonic()


class Inventory:
    async def by_name(self) -> dict[str, Gadget]:
        return {}


def test_the_generator_writes_typed_blocking_methods_that_wrap_and_unwrap():
    source = generate([FacadeSpec(Gadget, closer="grow")], [])
    assert "class Gadget(Facade[AsyncGadget]):" in source
    assert "def __init__(self, size: int, *, label: str | None = None) -> None:" in source
    assert "adopt(self, AsyncGadget(size, label=label))" in source
    assert "def grow(self, by: int = 1_000, *, copies: int = 2) -> list[Gadget]:" in source
    assert '        """Make bigger copies."""' in source
    assert "return wrap_list(Gadget, run(unwrap(self).grow(by, copies=copies)))" in source
    assert "def twin(self) -> Gadget | None:" in source
    assert "return wrap_optional(Gadget, unwrap(self).twin)" in source
    assert "unwrap(self).pair(unwrap(other))" in source
    assert "def label(self) -> str:" in source  # `label or "plain"` is never None
    assert '"""What the gadget is called."""' in source
    assert "def size(self) -> int:" in source
    assert "def __exit__(self, *exc: object) -> None:\n        self.grow()" in source


def test_the_generator_asks_for_an_annotation_it_cannot_infer():
    with pytest.raises(GenerationError, match=r"Clock\.started: annotate it"):
        generate([FacadeSpec(Clock)], [])


def test_the_generator_refuses_a_facade_inside_a_shape_it_cannot_convert():
    with pytest.raises(GenerationError, match=r"cannot convert a dict\[str, Gadget\]"):
        generate([FacadeSpec(Gadget), FacadeSpec(Inventory)], [])
