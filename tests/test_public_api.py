"""The public API is explicit, and every error says what to do next."""

from __future__ import annotations

import inspect

import tabwarden
import tabwarden.errors as errors


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


def test_errors_carry_hints_in_their_text():
    err = errors.TabNotFound("no tab t9")
    assert err.hint and err.hint in str(err)
    cdp = errors.CDPError("Page.navigate", -32000, "boom", "S1")
    assert (cdp.method, cdp.code, cdp.session_id) == ("Page.navigate", -32000, "S1")
    timeout = errors.NavigationTimeout(
        "slow", url="http://x/", wait_until="load", reached=("commit",)
    )
    assert isinstance(timeout, TimeoutError) and isinstance(timeout, errors.NavigationError)
