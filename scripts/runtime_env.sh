#!/usr/bin/env bash
# The project-local environment of the runtime adapters: the pinned frameworks they drive,
# installed once into .runtimes/python (a virtual environment from
# conformance/runtimes/python/requirements.txt) and conformance/runtimes/javascript/node_modules
# (`npm ci` from its lock file). Installs again only when a pin changes. The runtime tests
# run it on first use; docs/runtime-adapters.md says how to use what it installs.
set -euo pipefail
cd "$(dirname "$0")/.."
# The interpreter itself, links resolved: a venv made from a link in a temporary folder
# (.ci/run puts one first on PATH) would break when the folder goes.
python=$("${PARCALL_RUNTIME_PYTHON:-python3}" -c 'import os, sys; print(os.path.realpath(sys.executable))')
venv=.runtimes/python
requirements=conformance/runtimes/python/requirements.txt
stamp=$venv/.installed-from
wanted=$(sha256sum "$requirements" | cut -c1-64)
if ! "$venv/bin/python" -c '' 2>/dev/null || [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]; then
  rm -rf "$venv"
  "$python" -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$requirements"
  echo "$wanted" >"$stamp"
fi
js=conformance/runtimes/javascript
js_stamp=$js/node_modules/.installed-from
js_wanted=$(sha256sum "$js/package-lock.json" | cut -c1-64)
if [ "$(cat "$js_stamp" 2>/dev/null)" != "$js_wanted" ]; then
  (cd "$js" && npm ci --silent --no-audit --no-fund)
  echo "$js_wanted" >"$js_stamp"
fi
