#!/usr/bin/env bash
# Builds the Go programs Kamino's tests need, from the Go module proxy only, into a
# per-version cache outside the repo: ${KAMINO_CACHE:-$HOME/.cache/kamino}/<tool>-<version>/.
#
#   toolchain/build.sh [group|tool...]               build (default: all groups); cached tools are skipped
#   toolchain/build.sh --print-path [group|tool...]  print the bin dirs, colon-joined, for PATH
#   toolchain/build.sh --regen [group|tool...]       rewrite toolchain/modules/*/go.mod from toolchain/versions.env + go mod tidy
#
# Groups: engine  = pulumi (+ bundled plugins), pulumi-language-nodejs, pulumi-resource-kubernetes
#         (pulumi-resource-command cannot be built here: see toolchain/versions.env)
#         cluster = etcd, kube (kube-apiserver, kube-controller-manager), karmada
#         nodes   = what real nodes run (test/cluster/nodes): containerd (+ ctr, the runc shim),
#                   kubenode (kubelet, kube-proxy, kube-scheduler), coredns, pause (Kamino's own), etcdctl
#         chart   = what Karmada's chart needs besides Karmada: helm (renders it in tests), kubectl and
#                   cfssl (the programs of its Jobs' images, test/cluster/nodes/images.ts), and
#                   karmada-next (Karmada at KARMADA_NEXT_VERSION, for the upgrade drill's images)
#         lint    = actionlint
# Versions: toolchain/versions.env; provider versions come from package-lock.json.
# The cache key is the version only: a changed go.sum at the same version is not rebuilt
# (delete $KAMINO_CACHE/<tool>-<version> to force it). Build failures keep going with the
# next tool and exit 1 at the end.
# Build logs: $KAMINO_CACHE/logs/<tool>-<version>.log
# Env: KAMINO_CACHE (cache dir), KAMINO_LOCKFILE (default: package-lock.json of this repo).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TOOLS="$ROOT/toolchain/modules"
# shellcheck source=versions.env
. "$ROOT/toolchain/versions.env"
CACHE=${KAMINO_CACHE:-$HOME/.cache/kamino}
LOCK=${KAMINO_LOCKFILE:-$ROOT/package-lock.json}

ALL_GROUPS=(engine cluster nodes chart lint)
export GOWORK=off CGO_ENABLED=0 GOTOOLCHAIN=${GOTOOLCHAIN:-local}
BASE_GOFLAGS=${GOFLAGS:-}   # e.g. -buildvcs=false from the environment; -mod is set per call
unset GOFLAGS

err() { echo "toolchain: $*" >&2; }
die() { err "$*"; exit 1; }

group_tools() {
  case "$1" in
    engine) echo "pulumi pulumi-language-nodejs pulumi-resource-kubernetes" ;;
    cluster) echo "etcd kube karmada" ;;
    nodes) echo "containerd kubenode coredns pause etcdctl" ;;
    chart) echo "helm kubectl cfssl karmada-next" ;;
    lint) echo "actionlint" ;;
    *) die "unknown group or tool '$1' (groups: ${ALL_GROUPS[*]}; tools: $(all_tools | paste -sd ' '))" ;;
  esac
}

all_tools() { local g; for g in "${ALL_GROUPS[@]}"; do group_tools "$g" | tr ' ' '\n'; done; }

# A group's tools, or one tool by its name (.ci/run builds what the loopback files need first).
tools_of() { # group-or-tool -> tools
  case " $(all_tools | tr '\n' ' ') " in *" $1 "*) echo "$1" ;; *) group_tools "$1" ;; esac
}

# ---------------------------------------------------------------- helpers

# node or python3 for JSON; node is there wherever the project's npm deps are.
json() { # json 'JS expression on variable j' < file   (prints the result; exit 3 if undefined/null)
  command -v node >/dev/null 2>&1 || { err "node not found on PATH (needed to read package-lock.json and go.mod JSON)"; return 1; }
  node -e '
    let s = ""; process.stdin.on("data", d => s += d).on("end", () => {
      const j = JSON.parse(s); const v = (new Function("j", "return (" + process.argv[1] + ")"))(j);
      if (v === undefined || v === null) process.exit(3);
      console.log(typeof v === "string" ? v : JSON.stringify(v));
    });' "$1"
}

lock_version() { # npm package name -> version in package-lock.json
  [ -f "$LOCK" ] || die "no lock file $LOCK"
  json '((j.packages || {})["node_modules/'"$1"'"] || (j.dependencies || {})["'"$1"'"] || {}).version' <"$LOCK" \
    || die "$1 is not in $LOCK"
}

map_lookup() { # map_lookup "a=b c=d" a -> b (exit 1 if missing)
  local kv
  for kv in $1; do
    if [ "${kv%%=*}" = "$2" ]; then echo "${kv#*=}"; return 0; fi
  done
  return 1
}

map_keys() { local kv out=""; for kv in $1; do out="$out ${kv%%=*}"; done; out=${out# }; echo "${out:-none}"; }

mod_download() { # module@version -> JSON of `go mod download -json` (outside any module)
  (cd / && GOFLAGS="$BASE_GOFLAGS" go mod download -json "$1")
}

mod_field() { # module@version field  (Dir, GoMod, Info, ...)
  local out
  out=$(mod_download "$1" 2>/dev/null) || {
    err "$1: $(printf '%s' "$out" | json 'j.Error' 2>/dev/null || echo 'go mod download failed')"
    return 1
  }
  printf '%s' "$out" | json "j.$2"
}

info_field() { # module@version field-of-.info (Time, Origin.Hash); empty if unknown
  local info
  info=$(mod_field "$1" Info) || return 1
  json "j.$2" <"$info" 2>/dev/null || true
}

gomod_json() { (cd / && go mod edit -json "$1"); }

require_version() { # go.mod module -> required version
  gomod_json "$1" | json '((j.Require || []).find(r => r.Path === "'"$2"'") || {}).Version'
}

check_wrapper() { # wrapper-dir module expected-version
  local have
  [ -f "$1/go.mod" ] && [ -f "$1/go.sum" ] || { err "${1#"$ROOT"/}/go.mod or go.sum missing: run toolchain/build.sh --regen"; return 1; }
  have=$(require_version "$1/go.mod" "$2" || true)
  [ "$have" = "$3" ] || { err "${1#"$ROOT"/}/go.mod requires $2 ${have:-nothing}, expected $3: run toolchain/build.sh --regen"; return 1; }
}

# go build inside a wrapper module, go.sum as committed (-mod=readonly).
wrapper_build() { # dir out tags ldflags pkg...
  local dir=$1 out=$2 tags=$3 ldf=$4; shift 4
  (cd "$dir" && GOFLAGS="-mod=readonly $BASE_GOFLAGS" go build -v -trimpath ${tags:+-tags "$tags"} -ldflags "$ldf" -o "$out" "$@")
}

tidy() { (cd "$1" && GOFLAGS="-mod=mod $BASE_GOFLAGS" go mod tidy); }

# Non-local replace directives of a go.mod, as go.mod lines (local "=> ../x" ones are dropped).
tool_wrapper_regen() { # name what module version tool-pkg... : a wrapper module requiring one module, its commands as tools
  local name=$1 what=$2 mod=$3 ver=$4 w="$TOOLS/$1" p; shift 4
  mkdir -p "$w"
  {
    echo "// Wrapper module: builds $what from the Go module proxy (pins go.sum)."
    echo "// Generated by toolchain/build.sh --regen."
    echo "module kamino.invalid/tools/$name"
    echo
    echo "go 1.26"
    echo
    echo "require $mod $ver"
    echo
    echo "tool ("
    for p in "$@"; do echo "	$p"; done
    echo ")"
  } >"$w/go.mod"
  rm -f "$w/go.sum"; tidy "$w"
}
version_replaces() {
  gomod_json "$1" | json '(j.Replace || []).filter(r => r.New.Version).map(r =>
      r.Old.Path + (r.Old.Version ? " " + r.Old.Version : "") + " => " + r.New.Path + " " + r.New.Version).join("\n")' || true
}

expect_output() { # what cmd...  : cmd output must contain `what`
  local what=$1 out; shift
  out=$("$@" 2>&1) || true
  case "$out" in *"$what"*) return 0 ;; esac
  err "$(basename "$1") printed '$(printf '%s' "$out" | head -n 3 | tr '\n' ' ')' - expected '$what'"
  return 1
}

# ---------------------------------------------------------------- tools
# For each tool T: T_version (cache key), T_build OUTDIR (writes the binaries), T_regen.

pulumi_version() { echo "$PULUMI_VERSION"; }
pulumi_regen() {
  local w="$TOOLS/pulumi-engine" pkgmod
  pkgmod=$(mod_field "github.com/pulumi/pulumi/pkg/v3@$PULUMI_VERSION" GoMod)
  mkdir -p "$w"
  {
    echo "// Wrapper module: builds the Pulumi CLI from the Go module proxy. Generated by"
    echo "// toolchain/build.sh --regen from toolchain/versions.env; do not edit by hand."
    echo "module kamino.invalid/tools/pulumi-engine"
    echo
    echo "go 1.26"
    echo
    echo "require ("
    echo "	github.com/pulumi/pulumi/pkg/v3 $PULUMI_VERSION"
    echo "	github.com/pulumi/pulumi/sdk/v3 $PULUMI_VERSION"
    echo ")"
    echo
    echo "// version-only replaces copied from pkg/v3's go.mod (its \"=> ../sdk\" is dropped)"
    version_replaces "$pkgmod" | sed -n 's/^\(..*\)$/replace \1/p'
    echo
    echo "tool ("
    echo "	github.com/pulumi/pulumi/pkg/v3/cmd/pulumi"
    echo ")"
  } >"$w/go.mod"
  rm -f "$w/go.sum"
  tidy "$w"
}
pulumi_build() {
  local out=$1 w="$TOOLS/pulumi-engine" pkgs=(github.com/pulumi/pulumi/pkg/v3/cmd/pulumi)
  check_wrapper "$w" github.com/pulumi/pulumi/pkg/v3 "$PULUMI_VERSION" || return 1
  wrapper_build "$w" "$out/" osusergo,grpcnotrace \
    "-s -w -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=$PULUMI_VERSION" "${pkgs[@]}" || return 1
  # Bundled dynamic-provider plugin, found next to `pulumi`: the npm package's own script, else an equivalent.
  local npm_script="$ROOT/node_modules/@pulumi/pulumi/pulumi-resource-pulumi-nodejs"
  if [ -f "$npm_script" ]; then
    cp "$npm_script" "$out/pulumi-resource-pulumi-nodejs"
  else
    printf '%s\n' '#!/bin/sh' \
      'exec node "$(node -e "console.log(require.resolve(\"@pulumi/pulumi/cmd/dynamic-provider\"))")" "$@"' \
      >"$out/pulumi-resource-pulumi-nodejs"
  fi
  chmod 755 "$out/pulumi-resource-pulumi-nodejs"
  PULUMI_HOME="$out/.pulumi-home" PULUMI_SKIP_UPDATE_CHECK=true \
    expect_output "$PULUMI_VERSION" "$out/pulumi" version || return 1
  rm -rf "$out/.pulumi-home"
}

k8s_npm() { lock_version @pulumi/kubernetes; }
k8s_pseudo() {
  local v; v=$(k8s_npm)
  map_lookup "$K8S_PROVIDER_MAP" "$v" || {
    err "pulumi-resource-kubernetes: package-lock.json has @pulumi/kubernetes $v, but toolchain/versions.env K8S_PROVIDER_MAP has no provider commit for it (mapped: $(map_keys "$K8S_PROVIDER_MAP"))"
    return 1
  }
}
pulumi-resource-kubernetes_version() { k8s_npm; }
# The provider module's cmd/pulumi-resource-kubernetes embeds schema-embed.json and
# terraform-mapping-embed.json, which upstream makes with `go generate` and which are not in
# the module zip. We unpack the module into a work dir in the cache, write the two files
# (schema.json with .version set; terraform-mapping.json re-marshalled) and build there with
# the committed wrapper go.mod, whose "replace ... => ./src" points at that copy.
k8s_workdir() { # pseudo npm-version -> prints work dir
  local pv=$1 v=$2 dir work
  dir=$(mod_field "github.com/pulumi/pulumi-kubernetes/provider/v4@$pv" Dir) || return 1
  mkdir -p "$CACHE/.work"
  work=$(mktemp -d "$CACHE/.work/pulumi-kubernetes.XXXXXX") || return 1
  cp -r "$dir" "$work/src" && chmod -R u+w "$work/src" || return 1
  node -e '
    const fs = require("fs"), path = require("path"), [d, v] = process.argv.slice(1);
    const s = JSON.parse(fs.readFileSync(path.join(d, "schema.json"), "utf8")); s.version = v;
    fs.writeFileSync(path.join(d, "schema-embed.json"), JSON.stringify(s));
    const m = JSON.parse(fs.readFileSync(path.join(d, "terraform-mapping.json"), "utf8"));
    fs.writeFileSync(path.join(d, "terraform-mapping-embed.json"), JSON.stringify(m));
  ' "$work/src/cmd/pulumi-resource-kubernetes" "$v" || return 1
  echo "$work"
}
pulumi-resource-kubernetes_regen() {
  local pv v w="$TOOLS/pulumi-kubernetes" work
  v=$(k8s_npm); pv=$(k8s_pseudo) || return 1
  work=$(k8s_workdir "$pv" "$v") || return 1
  {
    echo "// Wrapper module: builds pulumi-resource-kubernetes $v (npm @pulumi/kubernetes) from the Go"
    echo "// module proxy. Generated by toolchain/build.sh --regen; do not edit by hand. It is built in a"
    echo "// copy under the cache dir where ./src is the unpacked provider module plus two generated files."
    echo "module kamino.invalid/tools/pulumi-kubernetes"
    echo
    echo "go 1.26"
    echo
    echo "require ("
    echo "	github.com/pulumi/pulumi-kubernetes/provider/v4 $pv"
    echo "	github.com/pulumi/pulumi-kubernetes/sdk/v4 v$v // stands in for the provider's \"=> ../sdk\""
    echo ")"
    echo
    echo "replace github.com/pulumi/pulumi-kubernetes/provider/v4 => ./src"
    version_replaces "$work/src/go.mod" | sed -n 's/^\(..*\)$/replace \1/p'
    echo
    echo "tool github.com/pulumi/pulumi-kubernetes/provider/v4/cmd/pulumi-resource-kubernetes"
  } >"$work/go.mod"
  tidy "$work" && mkdir -p "$w" && cp "$work/go.mod" "$work/go.sum" "$w/"
  local rc=$?; rm -rf "$work"; return $rc
}
pulumi-resource-kubernetes_build() {
  local out=$1 v pv w="$TOOLS/pulumi-kubernetes" work rc=0
  v=$(k8s_npm); pv=$(k8s_pseudo) || return 1
  check_wrapper "$w" github.com/pulumi/pulumi-kubernetes/provider/v4 "$pv" || return 1
  work=$(k8s_workdir "$pv" "$v") || return 1
  cp "$w/go.mod" "$w/go.sum" "$work/"
  wrapper_build "$work" "$out/pulumi-resource-kubernetes" "" \
    "-s -w -X github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/version.Version=$v" \
    github.com/pulumi/pulumi-kubernetes/provider/v4/cmd/pulumi-resource-kubernetes || rc=1
  rm -rf "$work"
  return $rc
}

# "+options": the build includes the runtime-options shim below (a cache key of its own).
pulumi-language-nodejs_version() { echo "$PULUMI_LANGHOST_SDK_VERSION+options"; }
pulumi-language-nodejs_regen() {
  local w="$TOOLS/pulumi-language-nodejs" gomod
  gomod=$(mod_field "github.com/pulumi/pulumi/sdk/v3@$PULUMI_LANGHOST_SDK_VERSION" GoMod) || return 1
  mkdir -p "$w"
  {
    echo "// Wrapper module: builds pulumi-language-nodejs from the sdk/v3 module, where it lived up to"
    echo "// v3.68.0 (see toolchain/versions.env). Generated by toolchain/build.sh --regen; do not edit."
    echo "module kamino.invalid/tools/pulumi-language-nodejs"
    echo
    echo "go 1.26"
    echo
    echo "require github.com/pulumi/pulumi/sdk/v3 $PULUMI_LANGHOST_SDK_VERSION"
    echo
    version_replaces "$gomod" | sed -n 's/^\(..*\)$/replace \1/p'
    echo
    echo "tool github.com/pulumi/pulumi/sdk/v3/nodejs/cmd/pulumi-language-nodejs"
  } >"$w/go.mod"
  rm -f "$w/go.sum"; tidy "$w"
}
pulumi-language-nodejs_build() {
  local out=$1 w="$TOOLS/pulumi-language-nodejs"
  check_wrapper "$w" github.com/pulumi/pulumi/sdk/v3 "$PULUMI_LANGHOST_SDK_VERSION" || return 1
  wrapper_build "$w" "$out/pulumi-language-nodejs.bin" "" \
    "-s -w -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=$PULUMI_LANGHOST_SDK_VERSION" \
    github.com/pulumi/pulumi/sdk/v3/nodejs/cmd/pulumi-language-nodejs || return 1
  # The v3.68.0 host takes Pulumi.yaml's runtime options (typescript, tsconfig, nodeargs) only as
  # flags; current CLIs send them in the RunRequest, which it does not read. The shim reads them
  # from the Pulumi.yaml of the project the CLI starts it in, as a current host would, so tests run
  # the program the way users' `pulumi` does (e.g. transpile-only through tsconfig.pulumi.json).
  cat >"$out/pulumi-language-nodejs" <<'SHIM'
#!/bin/sh
# Pulumi.yaml's runtime options as the v3.68.0 host's flags, before the CLI's own arguments.
here=$(dirname "$0")
if [ -f Pulumi.yaml ]; then
  for key in typescript tsconfig nodeargs; do
    value=$(sed -n "s/^ *$key: *//p" Pulumi.yaml | head -n 1)
    if [ -n "$value" ]; then set -- "-$key=$value" "$@"; fi
  done
fi
exec "$here/pulumi-language-nodejs.bin" "$@"
SHIM
  chmod 755 "$out/pulumi-language-nodejs"
  [ -x "$out/pulumi-language-nodejs.bin" ]
}

# "+etcdutl": etcdutl joined the set (the restore of Karmada's three-member etcd); a cache key of its own.
etcd_version() { echo "$ETCD_VERSION+etcdutl"; }
etcd_regen() {
  local w="$TOOLS/etcd"
  mkdir -p "$w"
  cat >"$w/go.mod" <<EOF
// Wrapper module: builds etcd and etcdutl from the Go module proxy (the server module's own
// go.mod has local replaces, so it cannot be go-installed), and etcdctl. Generated by toolchain/build.sh --regen.
module kamino.invalid/tools/etcd

go 1.26

require (
	go.etcd.io/etcd/server/v3 $ETCD_VERSION
	go.etcd.io/etcd/etcdutl/v3 $ETCD_VERSION
	go.etcd.io/etcd/etcdctl/v3 $ETCD_VERSION
)

tool (
	go.etcd.io/etcd/server/v3
	go.etcd.io/etcd/etcdutl/v3
	go.etcd.io/etcd/etcdctl/v3
)
EOF
  rm -f "$w/go.sum"; tidy "$w"
}
etcd_build() {
  local out=$1 w="$TOOLS/etcd"
  check_wrapper "$w" go.etcd.io/etcd/server/v3 "$ETCD_VERSION" || return 1
  check_wrapper "$w" go.etcd.io/etcd/etcdutl/v3 "$ETCD_VERSION" || return 1
  wrapper_build "$w" "$out/etcd" "" "-s -w" go.etcd.io/etcd/server/v3 || return 1
  wrapper_build "$w" "$out/etcdutl" "" "-s -w" go.etcd.io/etcd/etcdutl/v3 || return 1
  expect_output "etcd Version: ${ETCD_VERSION#v}" "$out/etcd" --version || return 1
  expect_output "etcdutl version: ${ETCD_VERSION#v}" "$out/etcdutl" version
}

kube_version() { echo "$KUBE_VERSION"; }
kube_regen() {
  local w="$TOOLS/kube" gomod sv="v0.${KUBE_VERSION#v1.}"
  gomod=$(mod_field "k8s.io/kubernetes@$KUBE_VERSION" GoMod) || return 1
  mkdir -p "$w"
  {
    echo "// Wrapper module: builds kube-apiserver, kube-controller-manager (group cluster), the node's"
    echo "// kubelet, kube-proxy and kube-scheduler (group nodes, tool kubenode) and kubectl (group chart) $KUBE_VERSION from the Go"
    echo "// module proxy. Generated by toolchain/build.sh --regen from k8s.io/kubernetes@$KUBE_VERSION's"
    echo "// go.mod: its staging modules (required at v0.0.0, replaced by ./staging/...) are pinned to $sv."
    echo "module kamino.invalid/tools/kube"
    echo
    echo "go 1.26"
    echo
    gomod_json "$gomod" | json '(j.GoDebug || j.Godebug || []).map(g => "godebug " + g.Key + "=" + g.Value).join("\n")' || true
    echo
    echo "require k8s.io/kubernetes $KUBE_VERSION"
    echo
    echo "replace ("
    gomod_json "$gomod" | json '(() => {
        const local = new Set((j.Replace || []).filter(r => !r.New.Version).map(r => r.Old.Path));
        return (j.Require || []).filter(r => r.Version === "v0.0.0" && local.has(r.Path))
          .map(r => "\t" + r.Path + " => " + r.Path + " '"$sv"'").join("\n"); })()'
    echo ")"
    echo
    echo "tool ("
    for c in kube-apiserver kube-controller-manager $KUBENODE_CMDS kubectl; do echo "	k8s.io/kubernetes/cmd/$c"; done
    echo ")"
  } >"$w/go.mod"
  rm -f "$w/go.sum"; tidy "$w"
}
kube_ldflags() { # what k8s's hack/lib/version.sh stamps; without it /version says v0.0.0-master and clients balk
  local minor t ldf="-s -w" kv
  minor=${KUBE_VERSION#v1.}; minor=${minor%%.*}
  t=$(info_field "k8s.io/kubernetes@$KUBE_VERSION" Time) || return 1
  for kv in "gitVersion=$KUBE_VERSION" gitMajor=1 "gitMinor=$minor" gitTreeState=clean \
            gitCommit=0000000000000000000000000000000000000000 "buildDate=${t:-1970-01-01T00:00:00Z}"; do
    ldf="$ldf -X k8s.io/component-base/version.$kv -X k8s.io/client-go/pkg/version.$kv"
  done
  echo "$ldf"
}
kube_build() {
  local out=$1 w="$TOOLS/kube" ldf
  check_wrapper "$w" k8s.io/kubernetes "$KUBE_VERSION" || return 1
  ldf=$(kube_ldflags) || return 1
  wrapper_build "$w" "$out/" "" "$ldf" k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager || return 1
  expect_output "Kubernetes $KUBE_VERSION" "$out/kube-apiserver" --version &&
    expect_output "Kubernetes $KUBE_VERSION" "$out/kube-controller-manager" --version
}

# The node's Kubernetes programs, from the same wrapper module as kube (its --regen lists them).
KUBENODE_CMDS="kubelet kube-proxy kube-scheduler"
kubenode_version() { echo "$KUBE_VERSION"; }
kubenode_regen() { kube_regen; }
kubenode_build() {
  local out=$1 w="$TOOLS/kube" ldf c pkgs=()
  check_wrapper "$w" k8s.io/kubernetes "$KUBE_VERSION" || return 1
  ldf=$(kube_ldflags) || return 1
  for c in $KUBENODE_CMDS; do pkgs+=("k8s.io/kubernetes/cmd/$c"); done
  wrapper_build "$w" "$out/" "" "$ldf" "${pkgs[@]}" || return 1
  for c in $KUBENODE_CMDS; do expect_output "Kubernetes $KUBE_VERSION" "$out/$c" --version || return 1; done
}

# kubectl for the chart's Jobs' image, from the same wrapper module as kube (its --regen lists it).
kubectl_version() { echo "$KUBE_VERSION"; }
kubectl_regen() { kube_regen; }
kubectl_build() {
  local out=$1 w="$TOOLS/kube" ldf
  check_wrapper "$w" k8s.io/kubernetes "$KUBE_VERSION" || return 1
  ldf=$(kube_ldflags) || return 1
  wrapper_build "$w" "$out/" "" "$ldf" k8s.io/kubernetes/cmd/kubectl || return 1
  expect_output "Client Version: $KUBE_VERSION" "$out/kubectl" version --client
}

# Helm, which renders Karmada's chart in the tests (helm template) as the provider's Helm installs it.
helm_version() { echo "$HELM_VERSION"; }
helm_regen() { tool_wrapper_regen helm "Helm $HELM_VERSION" helm.sh/helm/v3 "$HELM_VERSION" helm.sh/helm/v3/cmd/helm; }
helm_build() {
  local out=$1 w="$TOOLS/helm"
  check_wrapper "$w" helm.sh/helm/v3 "$HELM_VERSION" || return 1
  wrapper_build "$w" "$out/" "" "-s -w -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION" helm.sh/helm/v3/cmd/helm || return 1
  expect_output "$HELM_VERSION" "$out/helm" version --short
}

# cfssl and cfssljson, which the chart's certificate Job runs (its image holds them, with bash and openssl).
CFSSL_CMDS="cfssl cfssljson"
cfssl_version() { echo "$CFSSL_VERSION"; }
cfssl_regen() {
  local c pkgs=()
  for c in $CFSSL_CMDS; do pkgs+=("github.com/cloudflare/cfssl/cmd/$c"); done
  tool_wrapper_regen cfssl "cfssl $CFSSL_VERSION and cfssljson" github.com/cloudflare/cfssl "$CFSSL_VERSION" "${pkgs[@]}"
}
cfssl_build() {
  local out=$1 w="$TOOLS/cfssl" c pkgs=()
  check_wrapper "$w" github.com/cloudflare/cfssl "$CFSSL_VERSION" || return 1
  for c in $CFSSL_CMDS; do pkgs+=("github.com/cloudflare/cfssl/cmd/$c"); done
  wrapper_build "$w" "$out/" "" "-s -w -X github.com/cloudflare/cfssl/cli/version.version=${CFSSL_VERSION#v}" "${pkgs[@]}" || return 1
  expect_output "${CFSSL_VERSION#v}" "$out/cfssl" version
}

# containerd 2 (the CRI runtime of Kubernetes 1.36) with ctr and the runc shim; runc itself is Debian's.
CONTAINERD_CMDS="containerd ctr containerd-shim-runc-v2"
containerd_version() { echo "$CONTAINERD_VERSION"; }
containerd_regen() {
  local c pkgs=()
  for c in $CONTAINERD_CMDS; do pkgs+=("github.com/containerd/containerd/v2/cmd/$c"); done
  tool_wrapper_regen containerd "containerd $CONTAINERD_VERSION, ctr and the runc shim" github.com/containerd/containerd/v2 "$CONTAINERD_VERSION" "${pkgs[@]}"
}
containerd_build() {
  local out=$1 w="$TOOLS/containerd" c pkgs=()
  check_wrapper "$w" github.com/containerd/containerd/v2 "$CONTAINERD_VERSION" || return 1
  for c in $CONTAINERD_CMDS; do pkgs+=("github.com/containerd/containerd/v2/cmd/$c"); done
  # No cgo: the btrfs, devmapper and zfs snapshotters need it and the nodes use overlayfs.
  wrapper_build "$w" "$out/" "no_btrfs no_devmapper no_zfs" \
    "-s -w -X github.com/containerd/containerd/v2/version.Version=$CONTAINERD_VERSION" "${pkgs[@]}" || return 1
  expect_output "$CONTAINERD_VERSION" "$out/containerd" --version
}

# CoreDNS with the plugins a test cluster's DNS needs: toolchain/modules/coredns/main.go (ours) imports them.
coredns_version() { echo "$COREDNS_VERSION"; }
coredns_regen() {
  local w="$TOOLS/coredns"
  [ -f "$w/main.go" ] || { err "toolchain/modules/coredns/main.go is missing"; return 1; }
  {
    echo "// Wrapper module: CoreDNS $COREDNS_VERSION with the plugins main.go imports, from the Go module"
    echo "// proxy. Generated by toolchain/build.sh --regen (main.go is Kamino's own)."
    echo "module kamino.invalid/tools/coredns"
    echo
    echo "go 1.26"
    echo
    echo "require github.com/coredns/coredns $COREDNS_VERSION"
  } >"$w/go.mod"
  rm -f "$w/go.sum"; tidy "$w"
}
coredns_build() {
  local out=$1 w="$TOOLS/coredns"
  check_wrapper "$w" github.com/coredns/coredns "$COREDNS_VERSION" || return 1
  wrapper_build "$w" "$out/coredns" "" "-s -w" . || return 1
  expect_output "${COREDNS_VERSION#v}" "$out/coredns" -version
}

# Kamino's own pause program (toolchain/modules/pause/main.go); keyed by its source.
pause_version() { sha256sum "$TOOLS/pause/main.go" | cut -c1-12; }
pause_regen() { :; }
pause_build() { wrapper_build "$TOOLS/pause" "$1/pause" "" "-s -w" .; }

# etcdctl (for the defragmentation and backup Jobs' image) from the etcd wrapper module.
etcdctl_version() { echo "$ETCD_VERSION"; }
etcdctl_regen() { etcd_regen; }
etcdctl_build() {
  local out=$1 w="$TOOLS/etcd"
  check_wrapper "$w" go.etcd.io/etcd/etcdctl/v3 "$ETCD_VERSION" || return 1
  wrapper_build "$w" "$out/etcdctl" "" "-s -w" go.etcd.io/etcd/etcdctl/v3 || return 1
  expect_output "etcdctl version: ${ETCD_VERSION#v}" "$out/etcdctl" version
}

KARMADA_CMDS="controller-manager scheduler aggregated-apiserver webhook agent"
# "+agent": karmada-agent joined the set (Pull-mode members); a cache key of its own.
karmada_version() { echo "$KARMADA_VERSION+agent"; }
karmada_regen() {
  local c pkgs=()
  for c in $KARMADA_CMDS; do pkgs+=("github.com/karmada-io/karmada/cmd/$c"); done
  tool_wrapper_regen karmada "Karmada $KARMADA_VERSION" github.com/karmada-io/karmada "$KARMADA_VERSION" "${pkgs[@]}"
}
karmada_build() {
  local out=$1 w="${TOOLS_KARMADA:-$TOOLS/karmada}" t h c pkgs=() bin="$1/.bin"
  check_wrapper "$w" github.com/karmada-io/karmada "$KARMADA_VERSION" || return 1
  t=$(info_field "github.com/karmada-io/karmada@$KARMADA_VERSION" Time) || return 1
  h=$(info_field "github.com/karmada-io/karmada@$KARMADA_VERSION" Origin.Hash) || return 1
  for c in $KARMADA_CMDS; do pkgs+=("github.com/karmada-io/karmada/cmd/$c"); done
  local p=github.com/karmada-io/karmada/pkg/version
  mkdir -p "$bin"
  wrapper_build "$w" "$bin/" "" "-s -w -X $p.gitVersion=$KARMADA_VERSION -X $p.gitTreeState=clean \
    -X $p.gitCommit=${h:-unknown} -X $p.gitShortCommit=${h:0:9} -X $p.buildDate=${t:-unknown}" "${pkgs[@]}" || return 1
  for c in $KARMADA_CMDS; do mv "$bin/$c" "$out/karmada-$c"; done
  rmdir "$bin"
  for c in $KARMADA_CMDS; do expect_output "GitVersion:\"$KARMADA_VERSION\"" "$out/karmada-$c" version || return 1; done
}

# The same programs at KARMADA_NEXT_VERSION, from a wrapper module of their own (toolchain/modules/karmada-next).
karmada-next_version() { echo "$KARMADA_NEXT_VERSION"; }
karmada-next_regen() {
  local c pkgs=()
  for c in $KARMADA_CMDS; do pkgs+=("github.com/karmada-io/karmada/cmd/$c"); done
  tool_wrapper_regen karmada-next "Karmada $KARMADA_NEXT_VERSION" github.com/karmada-io/karmada "$KARMADA_NEXT_VERSION" "${pkgs[@]}"
}
karmada-next_build() { KARMADA_VERSION=$KARMADA_NEXT_VERSION TOOLS_KARMADA="$TOOLS/karmada-next" karmada_build "$1"; }

actionlint_version() { echo "$ACTIONLINT_VERSION"; }
actionlint_regen() {
  local w="$TOOLS/actionlint"
  mkdir -p "$w"
  cat >"$w/go.mod" <<EOF
// Wrapper module: builds actionlint from the Go module proxy (pins go.sum).
// Generated by toolchain/build.sh --regen.
module kamino.invalid/tools/actionlint

go 1.26

require github.com/rhysd/actionlint $ACTIONLINT_VERSION

tool github.com/rhysd/actionlint/cmd/actionlint
EOF
  rm -f "$w/go.sum"; tidy "$w"
}
actionlint_build() {
  local out=$1 w="$TOOLS/actionlint"
  check_wrapper "$w" github.com/rhysd/actionlint "$ACTIONLINT_VERSION" || return 1
  wrapper_build "$w" "$out/" "" "-s -w -X github.com/rhysd/actionlint.version=$ACTIONLINT_VERSION" \
    github.com/rhysd/actionlint/cmd/actionlint || return 1
  expect_output "$ACTIONLINT_VERSION" "$out/actionlint" --version
}

# ---------------------------------------------------------------- driver

tool_dir() { # tool -> cache dir (fails if the version cannot be resolved)
  local v; v=$("$1_version") || return 1
  echo "$CACHE/$1-$v"
}

TMP_DIRS=()
cleanup() { local d; for d in "${TMP_DIRS[@]:+${TMP_DIRS[@]}}"; do rm -rf "$d"; done; }
trap cleanup EXIT
trap 'exit 130' INT TERM

ensure_tool() { # -> 0 built/cached, 1 failed (one line on stderr)
  local t=$1 dir v tmp log start rc
  if ! v=$("${t}_version" 2>/dev/null); then
    "${t}_version" >/dev/null || true   # let it print its reason
    err "$t: FAILED (cannot tell which version to build)"; return 1
  fi
  dir="$CACHE/$t-$v"
  if [ -d "$dir" ]; then echo "$t $v: cached ($dir)"; return 0; fi
  command -v go >/dev/null 2>&1 || { err "$t $v: FAILED: go not found on PATH (Go 1.26 is needed to build it)"; return 1; }
  mkdir -p "$CACHE/logs" "$CACHE/.work"
  log="$CACHE/logs/$t-$v.log"
  tmp=$(mktemp -d "$CACHE/.work/$t-$v.XXXXXX"); TMP_DIRS+=("$tmp")
  start=$(date +%s)
  { echo "# $(date -u +%FT%TZ) building $t $v with $(go version)"; } >"$log"
  rc=0; "${t}_build" "$tmp" >>"$log" 2>&1 || rc=$?
  if [ $rc -ne 0 ]; then
    # keep partial output for inspection, outside the published dirs
    rm -rf "$CACHE/.work/failed-$t-$v"
    rmdir "$tmp" 2>/dev/null || mv "$tmp" "$CACHE/.work/failed-$t-$v" 2>/dev/null || true
    local why
    why=$( { grep -E '^(go: |toolchain: )' "$log" || grep -v '^#' "$log" | grep -iE 'error|fail|not available|cannot|no matching'; } \
      | tail -n 1 | sed 's/^toolchain: //' | cut -c1-400)
    err "$t $v: FAILED after $(( $(date +%s) - start ))s: ${why:-see log} (log: $log)"
    return 1
  fi
  chmod 755 "$tmp"
  # Atomic publish: the versioned dir appears only once everything in it is complete.
  if ! mv -T "$tmp" "$dir" 2>/dev/null; then
    [ -d "$dir" ] || { err "$t $v: FAILED to move $tmp to $dir"; return 1; }
  fi
  echo "$t $v: built in $(( $(date +%s) - start ))s ($dir: $(cd "$dir" && ls | tr '\n' ' ' | sed 's/ $//'))"
}

mode=build
groups=()
for a in "$@"; do
  case "$a" in
    --print-path) mode=path ;;
    --regen) mode=regen ;;
    -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option $a" ;;
    *) tools_of "$a" >/dev/null; groups+=("$a") ;;
  esac
done
[ ${#groups[@]} -gt 0 ] || groups=("${ALL_GROUPS[@]}")
tools=()
for g in "${groups[@]}"; do for t in $(tools_of "$g"); do tools+=("$t"); done; done

if [ "$mode" = path ]; then
  dirs=()
  for t in "${tools[@]}"; do
    if d=$(tool_dir "$t" 2>/dev/null); then
      [ -d "$d" ] || err "warning: $t not built yet ($d); run toolchain/build.sh ${groups[*]}"
      dirs+=("$d")
    else
      err "warning: $t: cannot tell its version; left out of the path"
    fi
  done
  (IFS=:; echo "${dirs[*]}")
  exit 0
fi

if [ "$mode" = regen ]; then
  command -v go >/dev/null 2>&1 || die "go not found on PATH (needed for --regen)"
  failed=()
  for t in "${tools[@]}"; do
    echo "regen $t ..."
    case "$t" in pulumi) w=pulumi-engine ;; pulumi-resource-*) w=pulumi-${t#pulumi-resource-} ;; kubenode|kubectl) w=kube ;; etcdctl) w=etcd ;; *) w=$t ;; esac
    bak=$(mktemp -d); TMP_DIRS+=("$bak")
    cp -p "$TOOLS/$w"/go.* "$bak/" 2>/dev/null || true
    if ! "${t}_regen"; then
      err "$t: --regen failed; toolchain/modules/$w left as it was"; failed+=("$t")
      rm -f "$TOOLS/$w"/go.mod "$TOOLS/$w"/go.sum
      if ls "$bak"/go.* >/dev/null 2>&1; then cp -p "$bak"/go.* "$TOOLS/$w/"; else rmdir "$TOOLS/$w" 2>/dev/null || true; fi
    fi
  done
  [ ${#failed[@]} -eq 0 ] || die "--regen failed: ${failed[*]}"
  exit 0
fi

mkdir -p "$CACHE"
if command -v flock >/dev/null 2>&1; then exec 9>"$CACHE/.lock"; flock 9; fi
# Leftovers of an interrupted run (never published); failed-* are kept for inspection.
[ ! -d "$CACHE/.work" ] || find "$CACHE/.work" -mindepth 1 -maxdepth 1 ! -name 'failed-*' -exec rm -rf {} +
failed=()
for t in "${tools[@]}"; do ensure_tool "$t" || failed+=("$t"); done
[ ${#failed[@]} -eq 0 ] || die "failed: ${failed[*]}"
