#!/usr/bin/env bash
# The Dockerfile's steps without a container engine (none in CI): on a clean copy of HEAD
# (git archive), the build stage's commands, then the image's: what `npm pack` ships plus the
# production dependencies in a folder of their own, `wo run` with the image's environment.
# Checks that it refuses to start off loopback without a token, then serves with one and
# answers the image's HEALTHCHECK. Keep the commands in step with the Dockerfile.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
work="$(mktemp -d)"
pid=""
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

mkdir -p "$work/src" "$work/opt/wo" "$work/app"
git -C "$repo" archive --format=tar HEAD | tar -x -C "$work/src"

# Build stage (Dockerfile: FROM … AS build).
(
  cd "$work/src"
  npm ci --no-audit --no-fund
  npm prune --omit=dev --no-audit --no-fund
  npm pack --ignore-scripts --pack-destination "$work"
)
tar -xzf "$work"/wo-*.tgz -C "$work/opt/wo" --strip-components=1
cp -a "$work/src/node_modules" "$work/opt/wo/node_modules"
if [ -e "$work/opt/wo/test" ] || [ -e "$work/opt/wo/tools" ] || [ -e "$work/opt/wo/node_modules/typescript" ]; then
  echo "image-steps: the image would hold tests, tools or dev dependencies" >&2
  exit 1
fi

# The image (ENV NODE_ENV=production WO_REQUIRE_TOKEN=1), on a small app mounted at /app.
cat >"$work/app/wo.toml" <<'TOML'
name = "image-check"
[server]
token_env = "WO_TOKEN"
TOML
printf 'type Note {\n  text: Text\n  service rest "/api/notes" expose list, create\n}\n' >"$work/app/app.wo"
export NODE_ENV=production WO_REQUIRE_TOKEN=1
wo=(node "$work/opt/wo/bin/wo.js")
port=$((20000 + RANDOM % 20000))

if WO_TOKEN="" timeout 120 "${wo[@]}" run "$work/app" --listen "0.0.0.0:$port" >"$work/refused.log" 2>&1; then
  echo "image-steps: wo run started off loopback without a token" >&2
  exit 1
fi
grep -q "refusing to listen on 0.0.0.0" "$work/refused.log" || grep -q "token_env" "$work/refused.log" || {
  cat "$work/refused.log" >&2
  exit 1
}

WO_TOKEN="image-check-token-0123456789abcdef" "${wo[@]}" run "$work/app" --listen "0.0.0.0:$port" --quiet >"$work/run.log" 2>&1 &
pid=$!
# The image's HEALTHCHECK command, on this port.
health="fetch('http://127.0.0.1:$port/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
for _ in $(seq 1 120); do
  if node -e "$health"; then
    status=$(node -e "fetch('http://127.0.0.1:$port/api/notes').then((r) => console.log(r.status))")
    if [ "$status" != "401" ]; then
      echo "image-steps: /api answered $status without a token" >&2
      exit 1
    fi
    echo "image-steps: ok (the packed wo serves, requires its token, answers /healthz)"
    exit 0
  fi
  kill -0 "$pid" 2>/dev/null || break
  sleep 1
done
cat "$work/run.log" >&2
echo "image-steps: wo run never answered /healthz" >&2
exit 1
