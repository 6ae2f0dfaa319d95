"""A function's parameters written again for ``sync.py``, and the call passing them on."""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .layout import def_lines
from .names import GenerationError, Names

__all__ = ["Signature"]


@dataclass(frozen=True)
class _Parameter:
    parameter: inspect.Parameter
    declaration: str
    """As written in the ``def`` (``*``, ``/`` markers aside)."""
    argument: str
    """As passed on to the async call (unwrapped when it is a facade)."""


class Signature:
    """The parameters, annotations and defaults of ``function``, in ``sync.py``'s names."""

    def __init__(
        self,
        function: Callable[..., Any],
        names: Names,
        where: str,
        *,
        returns: str | None = None,
    ) -> None:
        signature = inspect.signature(function)
        module = function.__module__
        defaults = _default_sources(function)
        self.method = False
        self._parameters: list[_Parameter] = []
        for index, parameter in enumerate(signature.parameters.values()):
            if index == 0 and parameter.name == "self":
                self.method = True
                continue
            if parameter.annotation is inspect.Parameter.empty:
                raise GenerationError(f"{where}: parameter {parameter.name} has no annotation")
            annotation = names.annotation(parameter.annotation, module)
            stars = (
                "*"
                if parameter.kind is parameter.VAR_POSITIONAL
                else "**"
                if parameter.kind is parameter.VAR_KEYWORD
                else ""
            )
            declaration = f"{stars}{parameter.name}: {annotation}"
            if parameter.default is not inspect.Parameter.empty:
                declaration += f" = {names.expression(defaults[parameter.name], module)}"
            argument = names.unwrapping(annotation, parameter.name)
            self._parameters.append(_Parameter(parameter, declaration, argument))
        if returns is None:
            written = signature.return_annotation
            if written is inspect.Signature.empty:
                if function.__name__ != "__init__":
                    raise GenerationError(f"{where} has no return annotation")
                written = "None"
            returns = names.annotation(written, module)
        self.returns = returns

    def def_lines(self, name: str, depth: int) -> list[str]:
        return def_lines(name, self._declarations(), self.returns, depth)

    def arguments(self) -> list[str]:
        """What the generated function passes on to the async one."""
        passed = []
        for item in self._parameters:
            kind = item.parameter.kind
            if kind is inspect.Parameter.VAR_POSITIONAL:
                passed.append(f"*{item.argument}")
            elif kind is inspect.Parameter.VAR_KEYWORD:
                passed.append(f"**{item.argument}")
            elif kind is inspect.Parameter.KEYWORD_ONLY:
                passed.append(f"{item.parameter.name}={item.argument}")
            else:
                passed.append(item.argument)
        return passed

    def free_name(self, preferred: str) -> str:
        """``preferred``, or a variant no parameter is called."""
        taken = {item.parameter.name for item in self._parameters}
        name = preferred
        while name in taken:
            name += "_"
        return name

    def _declarations(self) -> list[str]:
        declarations = ["self"] if self.method else []
        kinds = [item.parameter.kind for item in self._parameters]
        for index, item in enumerate(self._parameters):
            kind = kinds[index]
            previous = kinds[index - 1] if index else None
            following = kinds[index + 1] if index + 1 < len(kinds) else None
            if (
                kind is inspect.Parameter.KEYWORD_ONLY
                and previous is not kind
                and inspect.Parameter.VAR_POSITIONAL not in kinds
            ):
                declarations.append("*")
            declarations.append(item.declaration)
            if kind is inspect.Parameter.POSITIONAL_ONLY and following is not kind:
                declarations.append("/")
        return declarations


def _default_sources(function: Callable[..., Any]) -> dict[str, str]:
    """Each parameter's default as written in the source (a named constant stays named)."""
    source = textwrap.dedent(inspect.getsource(function))
    node = next(
        n
        for n in ast.walk(ast.parse(source))
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
    )
    args = node.args
    positional = [argument.arg for argument in [*args.posonlyargs, *args.args]]
    defaults = dict(zip(positional[::-1], args.defaults[::-1], strict=False))
    for argument, default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
        if default is not None:
            defaults[argument.arg] = default
    return {name: _one_line(source, default) for name, default in defaults.items()}


def _one_line(source: str, node: ast.expr) -> str:
    segment = ast.get_source_segment(source, node)
    if segment is None or "\n" in segment:
        return ast.unparse(node)
    return segment
