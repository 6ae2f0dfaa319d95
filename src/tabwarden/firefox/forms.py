"""Form controls on a Firefox tab: choosing options of a <select>, checking a checkbox,
radio or switch. The same scripts and errors as on Chromium (actions/forms.py)."""

from __future__ import annotations

from ..actions.forms import (
    CHECKED_JS,
    SELECT_JS,
    checkable_state,
    chosen_options,
    not_changed,
    option_values,
)
from ..budget import Budget
from .calling import InputPage, call_on
from .pointer import click_element

__all__ = ["select_options", "set_checked"]


async def select_options(
    page: InputPage, ref: str, values: list[str] | str, budget: Budget
) -> tuple[str, str]:
    """Choose the options of the <select> ``ref`` names by value or label (``input``
    and ``change`` fire as on Chromium). Returns (its label, what was selected)."""
    wanted = option_values(values)
    context, element = await page.element(ref, budget)
    result = await call_on(page, context, element, SELECT_JS, budget, wanted)
    label = page.label(ref)
    chosen = chosen_options(label, ref, wanted, result)
    return label, "selected " + ", ".join(o.describe() for o in chosen)


async def set_checked(page: InputPage, ref: str, checked: bool, budget: Budget) -> tuple[str, str]:
    """Check (or uncheck) the checkbox, radio or switch ``ref`` names by clicking it when
    its state differs, and make sure the click changed it."""
    context, element = await page.element(ref, budget)
    label = page.label(ref)
    state = checkable_state(label, ref, await call_on(page, context, element, CHECKED_JS, budget))
    if state is checked:
        return label, f"already {'checked' if checked else 'unchecked'}"
    await click_element(page, ref, budget)
    after = checkable_state(label, ref, await call_on(page, context, element, CHECKED_JS, budget))
    if after is not checked:
        raise not_changed(label, checked)
    return label, "checked" if checked else "unchecked"
