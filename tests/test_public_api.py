"""The public API is explicit, and every error says what to do next."""

from __future__ import annotations

import builtins
import inspect
import re

import tabwarden
import tabwarden.errors as errors
from tabwarden.surfaces import daemon


def test_all_lists_exactly_the_public_names():
    public = {name for name in vars(tabwarden) if not name.startswith("_")}
    modules = {name for name in public if inspect.ismodule(getattr(tabwarden, name))}
    modules.add("annotations")  # the __future__ import
    assert set(tabwarden.__all__) - {"__version__"} == public - modules
    for name in tabwarden.__all__:
        assert hasattr(tabwarden, name)


def test_every_error_is_in_the_one_tree_and_documented():
    classes = [
        obj
        for obj in vars(errors).values()
        if inspect.isclass(obj) and issubclass(obj, Exception) and obj.__module__ == errors.__name__
    ]
    assert set(errors.__all__) == {c.__name__ for c in classes}
    for cls in classes:
        assert issubclass(cls, errors.TabwardenError)
        assert cls.__name__ in errors.__doc__, f"{cls.__name__} missing from the tree drawing"
        assert getattr(tabwarden, cls.__name__) is cls


def test_the_tree_drawing_matches_the_classes():
    drawn = re.findall(r"^( *)\* :class:`(\w+)`", errors.__doc__ or "", re.MULTILINE)
    assert sorted(name for _, name in drawn) == sorted(errors.__all__)
    parents: list[tuple[int, type]] = []
    for indent, name in drawn:
        cls = getattr(errors, name)
        while parents and parents[-1][0] >= len(indent):
            parents.pop()
        if parents:
            assert parents[-1][1] in cls.__bases__, f"{name} is drawn under {parents[-1][1]}"
        parents.append((len(indent), cls))


def test_no_error_shadows_a_builtin_name():
    assert not set(errors.__all__) & set(dir(builtins))


def test_the_daemons_errors_are_in_the_tree():
    assert issubclass(errors.DaemonUnreachable, errors.SessionError)
    assert issubclass(errors.DaemonNotRunning, errors.DaemonUnreachable)
    assert errors.DaemonNotRunning("no daemon").hint
    assert daemon.DaemonUnreachable is errors.DaemonUnreachable
    remote = errors.RemoteError("TabNotFound", "no tab t9", "list tabs")
    assert remote.error_class is errors.TabNotFound
    assert issubclass(errors.TabNotFound, errors.TabUnavailable)
    assert errors.RemoteError("KeyError", "m", "h").error_class is None
    assert errors.RemoteError("annotations", "m", "h").error_class is None


def test_errors_carry_hints_in_their_text():
    err = errors.TabNotFound("no tab t9")
    assert err.hint and err.hint in str(err)
    cdp = errors.CDPError("Page.navigate", -32000, "boom", "S1")
    assert (cdp.method, cdp.code, cdp.session_id) == ("Page.navigate", -32000, "S1")
    timeout = errors.NavigationTimeout(
        "slow", url="http://x/", wait_until="load", reached=("commit",)
    )
    assert isinstance(timeout, TimeoutError) and isinstance(timeout, errors.NavigationError)
