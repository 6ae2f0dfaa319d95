"""Which files tabwarden may read and write on the agent's behalf.

Reads (uploads, storage-state files) come from the workspace or from folders the
user allowed; writes (downloads, PDFs, screenshots, traces, recordings, state
files) go only into the workspace's output folder. Paths are judged after
resolving symlinks and ``..``, so neither can lead outside.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import PathNotAllowed

if TYPE_CHECKING:
    from ..config import Config

__all__ = ["OUTPUT_KINDS", "WorkspacePaths", "safe_file_name"]

OUTPUT_KINDS = ("downloads", "pdf", "screenshots", "traces", "recordings", "state")
"""Sub-folders of the output folder, one per kind of file written."""

_UNSAFE = re.compile(r"[^\w.\- ()\[\]+,=@]+")
_MAX_NAME = 120


def safe_file_name(name: str, *, fallback: str = "file") -> str:
    """A plain file name from anything a page suggests: no folders, no control or shell
    characters, no leading dot (hidden files), bounded length; the extension is kept."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    base = _UNSAFE.sub("_", base).strip(" ._")
    if not base:
        base = fallback
    if len(base) > _MAX_NAME:
        stem, dot, ext = base.rpartition(".")
        if dot and 0 < len(ext) <= 16:
            base = stem[: _MAX_NAME - len(ext) - 1] + "." + ext
        else:
            base = base[:_MAX_NAME]
    return base


class WorkspacePaths:
    """The workspace root, its output folder, and the folders uploads may come from."""

    def __init__(
        self,
        workspace: str | os.PathLike[str],
        *,
        output_dir: str | os.PathLike[str] | None = None,
        upload_dirs: Iterable[str | os.PathLike[str]] = (),
    ) -> None:
        self.root = Path(workspace).expanduser().resolve()
        output = Path(output_dir).expanduser() if output_dir is not None else None
        if output is None:
            output = self.root / "tabwarden-output"
        elif not output.is_absolute():
            output = self.root / output
        self.output_root = output.resolve()
        if not _inside(self.output_root, self.root):
            raise PathNotAllowed(
                f"the output folder {self.output_root} is outside the workspace {self.root}",
                hint="set files.output_dir to a folder inside the workspace (or leave it unset)",
            )
        self.upload_roots = (self.root, *(Path(p).expanduser().resolve() for p in upload_dirs))

    @classmethod
    def from_config(cls, config: Config) -> WorkspacePaths:
        return cls(
            config.browser.workspace or Path.cwd(),
            output_dir=config.files.output_dir,
            upload_dirs=config.files.upload_dirs,
        )

    def output_dir(self, kind: str, *, create: bool = True) -> Path:
        """The folder for one kind of output, created on first use (``create=False``:
        only its path, for a writer that makes it itself, such as the browser)."""
        if kind not in OUTPUT_KINDS:
            raise ValueError(f"unknown output kind {kind!r}")
        folder = self.output_root / kind
        if create:
            folder.mkdir(parents=True, exist_ok=True)
        return folder

    def output_path(self, kind: str, name: str | None, *, suffix: str, stem: str = "") -> Path:
        """Where to write a new file: ``name`` inside the kind's folder (a relative path
        is taken as a name there; an absolute one must lie inside the workspace), or a
        fresh time-stamped name. Never an existing file: ``-2``, ``-3``… are appended.
        Nothing is created before the name is judged."""
        folder = self.output_dir(kind, create=False)
        if name is None or not name.strip():
            import time

            name = f"{stem or kind}-{time.strftime('%Y%m%d-%H%M%S')}{suffix}"
        requested = Path(name).expanduser()
        if requested.is_absolute():
            parent = requested.parent.resolve()
            if not _inside(parent, self.root):
                raise PathNotAllowed(
                    f"{requested} is outside the workspace {self.root}: files are written "
                    "only into the workspace",
                    hint=f"give a file name (it is saved in {folder}) or a path inside {self.root}",
                )
            folder = parent
        elif ".." in requested.parts:
            raise PathNotAllowed(
                f"{name!r} climbs out of the output folder with '..'",
                hint=f"give a plain file name; it is saved in {folder}",
            )
        folder.mkdir(parents=True, exist_ok=True)
        file_name = safe_file_name(requested.name, fallback=f"{stem or kind}{suffix}")
        if suffix and not file_name.lower().endswith(suffix.lower()):
            file_name += suffix
        return _unique(folder / file_name)

    def readable(self, path: str | os.PathLike[str], *, what: str = "file") -> Path:
        """A file the agent may hand to the browser (upload, state file): it must exist,
        be a regular file, and resolve (symlinks followed) inside an allowed folder."""
        given = Path(path).expanduser()
        candidate = given if given.is_absolute() else self.root / given
        # Judge where it leads before whether it exists: no probing outside. (A symlink
        # loop is reported by the strict resolve below.)
        with contextlib.suppress(OSError, RuntimeError):
            self._check_allowed(path, candidate, candidate.resolve(), what)
        try:
            real = candidate.resolve(strict=True)
        except (FileNotFoundError, NotADirectoryError):
            raise PathNotAllowed(
                f"the {what} {str(path)!r} does not exist (looked at {candidate})",
                hint=f"give a path inside the workspace {self.root}",
            ) from None
        except (OSError, RuntimeError) as exc:  # a symlink loop, a permission error
            raise PathNotAllowed(f"cannot read the {what} {str(path)!r}: {exc}") from None
        self._check_allowed(path, candidate, real, what)  # a link swapped in meanwhile
        if not real.is_file():
            raise PathNotAllowed(
                f"the {what} {str(path)!r} is not a regular file",
                hint="give the path of a file, not a folder or a device",
            )
        return real

    def _check_allowed(
        self, given: str | os.PathLike[str], candidate: Path, real: Path, what: str
    ) -> None:
        if any(_inside(real, root) for root in self.upload_roots):
            return
        escaped = "" if real == candidate.absolute() else f" (it leads to {real})"
        allowed = ", ".join(str(r) for r in self.upload_roots)
        raise PathNotAllowed(
            f"the {what} {str(given)!r} is outside the folders files may come from{escaped}",
            hint=f"copy it into the workspace, or allow its folder in files.upload_dirs; "
            f"allowed now: {allowed}",
        )


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _unique(path: Path) -> Path:
    if not path.exists():
        return path
    for n in range(2, 10_000):
        candidate = path.with_name(f"{path.stem}-{n}{path.suffix}")
        if not candidate.exists():
            return candidate
    raise PathNotAllowed(f"too many files named like {path.name} in {path.parent}")
