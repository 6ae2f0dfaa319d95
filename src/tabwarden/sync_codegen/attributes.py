"""The public attributes a class sets on ``self``, and their types, read from its source.

An attribute's type is its annotation; else that of the parameter, the literal, the class
or the annotated function it is set from (``x or default``: both, less ``None``). Past
that, the generator asks for an annotation rather than guess.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import sys
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .names import GenerationError, Names, union_members

__all__ = ["Attribute", "public_attributes"]

_Function = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True)
class Attribute:
    annotation: str
    """In ``sync.py``'s names."""
    doc: str | None
    """The string right after the assignment, if any."""


@dataclass(frozen=True)
class _Assignment:
    name: str
    annotation: ast.expr | None
    value: ast.expr | None
    function: _Function
    doc: str | None


def public_attributes(cls: type, names: Names, skipped: set[str]) -> dict[str, Attribute]:
    """The public attributes ``cls`` sets on ``self`` in any method (but ``skipped``)."""
    module = cls.__module__
    found: dict[str, list[_Assignment]] = {}
    for assignment in _self_assignments(cls):
        if assignment.name not in skipped:
            found.setdefault(assignment.name, []).append(assignment)
    attributes = {}
    for name, assignments in found.items():
        # An annotation wins; else the first assignment whose type is plain to see.
        ordered = sorted(assignments, key=lambda a: a.annotation is None)
        annotation = next(
            (t for a in ordered if (t := _assigned_type(a, module, names)) is not None), None
        )
        if annotation is None:
            raise GenerationError(
                f"cannot tell the type of {cls.__name__}.{name}: annotate it where "
                f"{module} sets it (self.{name}: <type> = …)"
            )
        doc = next((a.doc for a in assignments if a.doc), None)
        attributes[name] = Attribute(annotation, doc)
    return attributes


def _self_assignments(cls: type) -> Iterator[_Assignment]:
    class_node = ast.parse(textwrap.dedent(inspect.getsource(cls))).body[0]
    assert isinstance(class_node, ast.ClassDef)
    for function in class_node.body:
        if not isinstance(function, _Function):
            continue
        for node in ast.walk(function):
            for block in ("body", "orelse", "finalbody"):
                statements = getattr(node, block, None)
                if isinstance(statements, list):
                    yield from _assignments_in(statements, function)


def _assignments_in(statements: list[ast.stmt], function: _Function) -> Iterator[_Assignment]:
    for index, node in enumerate(statements):
        targets: list[ast.expr]
        if isinstance(node, ast.AnnAssign):
            targets, annotation = [node.target], node.annotation
        elif isinstance(node, ast.Assign):
            targets, annotation = node.targets, None
        else:
            continue
        following = statements[index + 1] if index + 1 < len(statements) else None
        doc = None
        if (
            isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
            and isinstance(following.value.value, str)
        ):
            doc = following.value.value
        for target in targets:
            if (
                isinstance(target, ast.Attribute)
                and isinstance(target.value, ast.Name)
                and target.value.id == "self"
                and not target.attr.startswith("_")
            ):
                yield _Assignment(target.attr, annotation, node.value, function, doc)


def _assigned_type(assignment: _Assignment, module: str, names: Names) -> str | None:
    if assignment.annotation is not None:
        return names.annotation(ast.unparse(assignment.annotation), module)
    if assignment.value is None:
        return None
    return _inferred_type(assignment.value, assignment.function, module, names)


def _inferred_type(value: ast.expr, function: _Function, module: str, names: Names) -> str | None:
    """The type of a plain value; None when it is not that plain."""
    if isinstance(value, ast.Constant) and type(value.value) in (bool, int, float, str):
        return type(value.value).__name__
    if isinstance(value, ast.Name):
        arguments = [*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs]
        for argument in arguments:
            if argument.arg == value.id and argument.annotation is not None:
                return names.annotation(ast.unparse(argument.annotation), module)
        return None
    if isinstance(value, ast.BoolOp) and isinstance(value.op, ast.Or):
        # `x or default` is None only when the last one can be.
        members: list[str] = []
        for index, operand in enumerate(value.values):
            operand_type = _inferred_type(operand, function, module, names)
            if operand_type is None:
                return None
            last = index == len(value.values) - 1
            for member in union_members(operand_type):
                if (last or member != "None") and member not in members:
                    members.append(member)
        return " | ".join(members)
    if isinstance(value, ast.Call):
        callee = _runtime_object(value.func, module)
        if inspect.isclass(callee):
            return names.annotation(ast.unparse(value.func), module)
        if callable(callee):
            try:
                returns = inspect.signature(callee).return_annotation
            except (TypeError, ValueError):  # a builtin without a signature
                return None
            if isinstance(returns, str):
                return names.annotation(returns, callee.__module__)
    return None


def _runtime_object(expression: ast.expr, module: str) -> Any:
    """What a name or dotted name in ``module`` is at run time (None: not found)."""
    if isinstance(expression, ast.Name):
        namespace = vars(sys.modules[module])
        return namespace.get(expression.id, getattr(builtins, expression.id, None))
    if isinstance(expression, ast.Attribute):
        return getattr(_runtime_object(expression.value, module), expression.attr, None)
    return None
