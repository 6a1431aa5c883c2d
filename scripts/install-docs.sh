#!/usr/bin/env bash
# Installs the real documentation the dev question sets are written against (Debian's
# sqlite3-doc and python3.11-doc HTML, git-doc for the held-out set, postgresql-doc-15 for the
# PostgreSQL set, apache2-doc for the second held-out set); the dev-set and recall-floor tests read them.
set -euo pipefail
need=()
[[ -d /usr/share/doc/sqlite3 && -n $(ls /usr/share/doc/sqlite3/*.html 2>/dev/null | head -n1) ]] || need+=(sqlite3-doc)
[[ -d /usr/share/doc/python3.11/html ]] || need+=(python3.11-doc)
[[ -f /usr/share/doc/git-doc/git-reset.html ]] || need+=(git-doc)
[[ -f /usr/share/doc/postgresql-doc-15/html/index.html ]] || need+=(postgresql-doc-15)
[[ -f /usr/share/doc/apache2-doc/manual/en/index.html ]] || need+=(apache2-doc)
if ((${#need[@]} == 0)); then
  echo "docs: sqlite3-doc, python3.11-doc, git-doc, postgresql-doc-15 and apache2-doc present"
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "docs: ${need[*]} missing and no apt-get here; the dev-set tests will skip (or fail under SATED_REQUIRE_INTEGRATION=1)" >&2
  exit 0
fi
echo "docs: installing ${need[*]} with apt-get"
SUDO=""
if [[ $(id -u) != 0 ]]; then SUDO=sudo; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}"
