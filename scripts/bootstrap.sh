#!/usr/bin/env bash
# Create .venv with a Python >= 3.12 (Django 6 needs it) and install the pinned dependencies.
# Re-installs only when pyproject.toml or constraints.txt changed. Prints the venv's python path last.
#
# A fresh clone on a machine where a checkout already installed the same pinned set (same interpreter, same
# pyproject.toml and constraints.txt) takes that installation from the machine's cache instead of running pip:
# ${CASINO_VENV_CACHE:-~/.cache/casino-venvs}/<hash of the set>/ holds a hard-linked copy of a finished .venv.
# It is linked into .venv (pip replaces files, never edits them in place, so the cache stays as it was), the
# other checkout's path in its scripts and in the project's editable install is rewritten (into new files), and
# it is kept only if it imports; else pip installs as usual. CASINO_VENV_CACHE=off skips the cache.
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

venv_ok() { [ -x .venv/bin/python ] && .venv/bin/python -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else 1)' 2>/dev/null; }

if venv_ok; then
  py=$(.venv/bin/python -c 'import sys; print(sys._base_executable)')
else
  if ! py=$(find_python); then
    echo "error: this project needs Python 3.12 or newer (Django 6). None was found on PATH or in pyenv." >&2
    echo "       Install one (e.g. 'pyenv install 3.12') or point PYTHON=/path/to/python3.12 at it." >&2
    exit 1
  fi
fi

stamp=.venv/.installed
want=$(cat pyproject.toml constraints.txt | sha256sum | cut -d' ' -f1)
cache_dir=${CASINO_VENV_CACHE:-${XDG_CACHE_HOME:-${HOME:-}/.cache}/casino-venvs}
[ -n "${CASINO_VENV_CACHE:-}${XDG_CACHE_HOME:-}${HOME:-}" ] || CASINO_VENV_CACHE=off  # nowhere to keep it

write_stamp() { echo "$want" >"$stamp.new" && mv "$stamp.new" "$stamp" && rm -f .venv/.uncached; }  # a new file (see above)

restore_from_cache() {  # $1: the cache entry; succeeds only with a working .venv
  local entry=$1
  rm -rf .venv
  cp -al "$entry/venv" .venv 2>/dev/null || { rm -rf .venv && cp -a "$entry/venv" .venv; } || return 1
  # the installing checkout's path (scripts' shebangs, activate, the editable install) becomes this one's
  .venv/bin/python - "$(cat "$entry/origin")" "$PWD" <<'PY' || return 1
import glob, os, sys
old, new = (arg.encode() for arg in sys.argv[1:])
# where an installation names its own path: scripts, pyvenv.cfg, .pth files and editable finders, dist-info
for pattern in ("bin/*", "pyvenv.cfg", "lib/*/site-packages/*", "lib/*/site-packages/*.dist-info/*"):
    for path in glob.glob(os.path.join(".venv", pattern)):
        if not os.path.isfile(path) or os.path.islink(path):
            continue
        with open(path, "rb") as f:
            data = f.read()
        if old in data:
            draft = path + ".bootstrap"
            with open(draft, "wb") as f:  # a new file: the cache's (hard-linked) one keeps its content
                f.write(data.replace(old, new))
            os.chmod(draft, os.stat(path).st_mode)
            os.replace(draft, path)
PY
  .venv/bin/python -c 'import casino, django, rest_framework, pytest' 2>/dev/null
}

pinned_set_only() {  # .venv holds exactly constraints.txt's versions (nothing installed by hand)
  local normal='tr A-Z_ a-z- | sort'
  [ "$(.venv/bin/python -m pip freeze -q --exclude-editable 2>/dev/null | eval "$normal")" = \
    "$(grep -v '^#' constraints.txt | grep . | eval "$normal")" ]
}

save_to_cache() {  # $1: the cache entry: this .venv hard-linked, written aside then renamed; the 3 newest kept
  local entry=$1 draft="$1.$$"
  pinned_set_only || return 1
  mkdir -p "$draft" 2>/dev/null || return 0
  if { cp -al .venv "$draft/venv" 2>/dev/null || { rm -rf "$draft/venv" && cp -a .venv "$draft/venv"; }; } \
    && printf '%s\n' "$PWD" >"$draft/origin"; then
    rm -rf "$entry" && mv "$draft" "$entry"
  fi
  rm -rf "$draft"
  ls -1dt "$cache_dir"/*/ 2>/dev/null | tail -n +4 | xargs -r rm -rf
}

key=$({ cat pyproject.toml constraints.txt; "$py" -c 'import sys; print(sys.version, sys.base_prefix)'; } \
  | sha256sum | cut -d' ' -f1)
[ "${1:-}" != --cache-key ] || { echo "$key"; exit 0; }  # the cache entry's name for this set (tests)
cached=$([ "${CASINO_VENV_CACHE:-}" != off ] && [ -f "$cache_dir/$key/origin" ] && echo yes || echo no)
if ! venv_ok || [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  if [ "$cached" = yes ] && restore_from_cache "$cache_dir/$key"; then
    echo "bootstrap: the pinned dependencies from this machine's cache ($cache_dir)" >&2
  else
    if ! venv_ok || [ "$cached" = yes ]; then  # none yet, or the cache's did not work
      echo "bootstrap: creating .venv with $py ($("$py" --version 2>&1))" >&2
      rm -rf .venv
      "$py" -m venv .venv
    fi
    echo "bootstrap: installing pinned dependencies" >&2
    .venv/bin/python -m pip install -q --disable-pip-version-check --upgrade pip >&2
    .venv/bin/python -m pip install -q --disable-pip-version-check -c constraints.txt -e ".[dev]" >&2
    [ "$cached" = yes ] || [ "${CASINO_VENV_CACHE:-}" = off ] || save_to_cache "$cache_dir/$key"
  fi
  write_stamp
elif [ "$cached" = no ] && [ "${CASINO_VENV_CACHE:-}" != off ] && [ ! -f .venv/.uncached ]; then
  # an installation made before the cache existed: cached if it is the pinned set only (checked once)
  save_to_cache "$cache_dir/$key" || touch .venv/.uncached
fi
echo "$PWD/.venv/bin/python"
