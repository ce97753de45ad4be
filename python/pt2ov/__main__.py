"""``python -m pt2ov run|inspect|bench ...``: the ``pt2ov`` command shipped in the package
(pt2ov/bin/pt2ov), with its flags, output and exit status (README.md, "The command line")."""
from __future__ import annotations

import os
import pathlib
import shutil
import sys


def command() -> str:
    """The pt2ov command: the package's bin/pt2ov, else $PT2OV_BIN, else `pt2ov` on PATH."""
    shipped = pathlib.Path(__file__).resolve().parent / "bin" / "pt2ov"
    if shipped.is_file() and os.access(shipped, os.X_OK):
        return str(shipped)
    other = os.environ.get("PT2OV_BIN") or shutil.which("pt2ov")
    if other and os.path.realpath(other) != os.path.realpath(sys.argv[0]):
        return other
    sys.exit(f"pt2ov: the command is not in this package ({shipped}); set PT2OV_BIN")


def main() -> None:
    path = command()
    sys.stdout.flush()
    os.execv(path, [path] + sys.argv[1:])


if __name__ == "__main__":
    main()
