# Sourced by scripts/test.sh (bash, `set -euo pipefail`): the headless browser of the approval
# page's tests. Debian's chromium is installed when missing (apt-get, as root or through sudo);
# its path goes to TOOL_SDK_CHROMIUM, where tests/page/browser.mjs (playwright-core, which
# downloads no browser of its own) finds it. A TOOL_SDK_CHROMIUM set by the caller is used as is.

tool_sdk_chromium_find() {
  local name
  for name in chromium chromium-browser; do
    if command -v "$name" >/dev/null 2>&1; then
      command -v "$name"
      return
    fi
  done
}

if [ -z "${TOOL_SDK_CHROMIUM:-}" ]; then
  TOOL_SDK_CHROMIUM="$(tool_sdk_chromium_find)"
  if [ -z "$TOOL_SDK_CHROMIUM" ]; then
    tool_sdk_sudo=""
    if [ "$(id -u)" != 0 ]; then
      if ! command -v sudo >/dev/null 2>&1; then
        echo "error: Chromium is not installed and, not being root and without sudo, this" \
          "script cannot install it; install the chromium package or set TOOL_SDK_CHROMIUM" >&2
        exit 1
      fi
      tool_sdk_sudo="sudo"
    fi
    echo "installing Chromium (apt-get install chromium)"
    if ! { $tool_sdk_sudo apt-get update -qq &&
      $tool_sdk_sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium \
        >/dev/null; }; then
      echo "error: apt-get could not install chromium" >&2
      exit 1
    fi
    TOOL_SDK_CHROMIUM="$(tool_sdk_chromium_find)"
    if [ -z "$TOOL_SDK_CHROMIUM" ]; then
      echo "error: chromium was installed but is not on the PATH" >&2
      exit 1
    fi
  fi
fi
export TOOL_SDK_CHROMIUM
echo "$("$TOOL_SDK_CHROMIUM" --version 2>/dev/null || echo Chromium) for the approval page's tests: $TOOL_SDK_CHROMIUM"
