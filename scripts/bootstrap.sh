#!/usr/bin/env bash
# Create .venv with a Python >= 3.12 (Django 6 needs it) and install the pinned dependencies.
# Re-installs only when pyproject.toml or constraints.txt changed. Prints the venv's python path last.
set -euo pipefail
cd "$(dirname "$0")/.."

find_python() {
  local candidates=()
  [ -n "${PYTHON:-}" ] && candidates+=("$PYTHON")
  candidates+=(python3.12 python3.13 python3 python)
  if command -v pyenv >/dev/null 2>&1; then
    for v in $(pyenv versions --bare 2>/dev/null | grep -E '^3\.(1[2-9])' | sort -V); do
      candidates+=("$(pyenv root)/versions/$v/bin/python3")
    done
  fi
  for c in "${candidates[@]}"; do
    local p
    p=$(command -v "$c" 2>/dev/null) || continue
    # pyenv shims exist for versions that are not selected; ask each one for real.
    if "$p" -c 'import sys, venv; sys.exit(0 if sys.version_info >= (3, 12) else 1)' >/dev/null 2>&1; then
      echo "$p"; return 0
    fi
    # a pyenv shim for an unselected version: try it with that version selected
    local ver
    ver=$(basename "$c" | sed -n 's/^python\(3\.[0-9]*\)$/\1/p')
    if [ -n "$ver" ] && command -v pyenv >/dev/null 2>&1; then
      local full
      full=$(pyenv versions --bare 2>/dev/null | grep -E "^${ver//./\\.}(\.|$)" | sort -rV | head -n1)
      if [ -n "$full" ] && PYENV_VERSION="$full" "$p" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else 1)' >/dev/null 2>&1; then
        echo "$(pyenv root)/versions/$full/bin/python3"; return 0
      fi
    fi
  done
  return 1
}

if [ ! -x .venv/bin/python ] || ! .venv/bin/python -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else 1)' 2>/dev/null; then
  if ! py=$(find_python); then
    echo "error: this project needs Python 3.12 or newer (Django 6). None was found on PATH or in pyenv." >&2
    echo "       Install one (e.g. 'pyenv install 3.12') or point PYTHON=/path/to/python3.12 at it." >&2
    exit 1
  fi
  echo "bootstrap: creating .venv with $py ($("$py" --version 2>&1))" >&2
  rm -rf .venv
  "$py" -m venv .venv
fi

stamp=.venv/.installed
want=$(cat pyproject.toml constraints.txt | sha256sum | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "bootstrap: installing pinned dependencies" >&2
  .venv/bin/python -m pip install -q --disable-pip-version-check --upgrade pip >&2
  .venv/bin/python -m pip install -q --disable-pip-version-check -c constraints.txt -e ".[dev]" >&2
  echo "$want" > "$stamp"
fi
echo "$PWD/.venv/bin/python"
