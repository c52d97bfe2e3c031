# shellcheck shell=bash
# The checks of tests/packaging/test-packages.sh (sourced by it). Each one prints "ok: ..." or
# exits with "FAIL: ..." through fail, so that a check run in a subshell (refuse) reports
# its verdict by its exit status.
py=/usr/bin/python3  # Debian's python3: the one the python3-gpgpu deb and the wheel are for
repo=$PWD            # sourced from the repository root
checks=$repo/tests/packaging/package_checks.py

fail() {
  echo "FAIL: $*"
  exit 1
}
ok() { echo "ok: $*"; }

project_version() {
  sed -n 's/^project(gpgpu VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt
}

# Package, Version and Architecture of a .deb, and a Maintainer and a Description.
check_deb_fields() {
  local deb=$1 version=$2 arch=$3 name
  [ -f "$deb" ] || fail "no package $deb"
  name=$(basename "$deb" | cut -d_ -f1)
  [ "$(dpkg-deb -f "$deb" Package)" = "$name" ] || fail "$deb: Package is not $name"
  [ "$(dpkg-deb -f "$deb" Version)" = "$version" ] ||
    fail "$deb: Version $(dpkg-deb -f "$deb" Version), the project's is $version"
  [ "$(dpkg-deb -f "$deb" Architecture)" = "$arch" ] || fail "$deb: Architecture is not $arch"
  [ -n "$(dpkg-deb -f "$deb" Maintainer)" ] && [ -n "$(dpkg-deb -f "$deb" Description)" ] ||
    fail "$deb: no Maintainer or Description"
  ok "$name $version $arch"
}

# apt resolves the packages' whole dependency closure from the archive for a system with
# nothing installed (an empty dpkg status): `apt install ./*.deb` works on a clean Debian.
check_apt_installs_clean() {
  local status=$1 log
  shift
  : >"$status"
  log=$(apt-get install -s -o Dir::State::status="$status" "$@" 2>&1) ||
    fail "apt cannot install $* on an empty system (are the apt lists there? apt-get update):
$log"
  ok "apt would install $# packages and $(grep -c '^Inst ' <<<"$log") others on an empty system"
}

# The package names in relation fields (Depends: a, b (>= 1) | c) on stdin, one a line.
package_names() {
  tr ',|' '\n\n' | sed 's/(.*)//; s/:any//; s/[[:space:]]//g' | grep -v '^$' | sort -u
}
# The package names in a .deb's relation field (Depends, Recommends).
relation_names() { dpkg-deb -f "$1" "$2" | package_names; }

check_relation() {
  local deb=$1 field=$2 missing=() p
  shift 2
  for p in "$@"; do relation_names "$deb" "$field" | grep -qx "$p" || missing+=("$p"); done
  ((${#missing[@]} == 0)) || fail "$(basename "$deb"): $field lacks ${missing[*]}"
  ok "$(basename "$deb"): $field names $*"
}
check_deb_declares() { check_relation "$1" Depends "${@:2}"; }
check_deb_recommends() { check_relation "$1" Recommends "${@:2}"; }

deb_files() { dpkg-deb -c "$1" | awk '{print $6}' | sed 's|^\./||'; }

require_files() {
  local deb=$1 listing missing=() f
  shift
  listing=$(deb_files "$deb")
  for f in "$@"; do grep -qx "$f" <<<"$listing" || missing+=("$f"); done
  ((${#missing[@]} == 0)) || fail "$(basename "$deb") lacks ${missing[*]}"
  ok "$(basename "$deb") has its $# files"
}

# Every public header of the tree (not the CPU reference's, nor the ONNX reader's, whose library
# is not installed (cmake/install.cmake); the MPI ones only with the MPI library), the three
# static libraries and the CMake package.
check_dev_files() {
  local deb=$1 multiarch=$2 lib headers
  lib=usr/lib/$multiarch
  mapfile -t headers < <(cd include && find gpgpu -name '*.hpp' ! -name cpu_matmul.hpp ! -name onnx.hpp | sort)
  if ! deb_files "$deb" | grep -q "^$lib/libgpgpu_mpi.a$"; then
    mapfile -t headers < <(printf '%s\n' "${headers[@]}" | grep -v -e '/mpi/' -e '/mpi.hpp$')
  fi
  deb_files "$deb" | grep -q 'cpu_matmul.hpp$' && fail "$(basename "$deb") ships cpu_matmul.hpp"
  deb_files "$deb" | grep -q 'nn/onnx.hpp$' && fail "$(basename "$deb") ships onnx.hpp without its library"
  require_files "$deb" "${headers[@]/#/usr/include/}" \
    "$lib/libgpgpu.a" "$lib/libgpgpu_nn.a" "$lib/libgpgpu_earth.a" \
    "$lib/cmake/gpgpu/gpgpuConfig.cmake" "$lib/cmake/gpgpu/gpgpuConfigVersion.cmake" \
    "$lib/cmake/gpgpu/gpgpuTargets.cmake" "$lib/cmake/gpgpu/gpgpuTargets-release.cmake"
}

check_tools_files() { require_files "$1" usr/bin/gpgpu usr/share/man/man1/gpgpu.1.gz; }

check_python_deb_files() {
  local suffix sources
  suffix=$("$py" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
  mapfile -t sources < <(cd python && ls gpgpu/*.py)
  require_files "$1" "${sources[@]/#/usr/lib/python3/dist-packages/}" \
    "usr/lib/python3/dist-packages/gpgpu/_gpgpu$suffix"
}

# tests/consumer (the core, gpgpu::nn and gpgpu::earth) configured against PREFIX alone, built
# and run.
consumer_build() {
  local prefix=$1 dir=$2 program
  cmake -S tests/consumer -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_PREFIX_PATH="$prefix" -DGPGPU_EXPECTED_PREFIX="$prefix" \
        -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF >"$dir.log" 2>&1 &&
    cmake --build "$dir" >>"$dir.log" 2>&1 || { cat "$dir.log"; fail "the consumer did not build"; }
  for program in gpgpu_consumer gpgpu_nn_consumer gpgpu_earth_consumer; do
    [ -x "$dir/$program" ] || fail "$program was not built (its library is not in the package)"
    "$dir/$program" || fail "$program failed"
  done
  ok "tests/consumer built against the unpacked libgpgpu-dev alone, and ran"
}

# Every package outside the compiler's own (build-essential brings those) that owns a file
# the consumer's compiles (ninja's dependency log) or links (its link lines) took from the
# system must be in the -dev package's Depends, or be what one of those depends on (fmt's
# CMake target links libfmt9's libfmt.so.9.1.0, which libfmt-dev brings).
check_deb_covers_used_files() {
  local deb=$1 dir=$2 files owners declared covered missing=() p
  files=$({
    ninja -C "$dir" -t deps | sed -n 's/^    //p'
    ninja -C "$dir" -t commands | grep -e ' -o gpgpu_' | tr ' ' '\n' | grep -E '\.(so|a)(\.[0-9]+)*$'
  } | grep -E '^/(usr|lib)/' | xargs realpath -s -m | sort -u)
  # shellcheck disable=SC2086
  owners=$("$py" "$checks" owners $files) || fail "${owners#FAIL: }"
  declared=$(relation_names "$deb" Depends)
  # shellcheck disable=SC2086
  covered=$({ echo "$declared"; dpkg-query -W -f='${Depends}\n' $declared | package_names; } | sort -u)
  for p in $(awk '{print $1}' <<<"$owners" | sort -u); do
    [[ $p =~ ^(libc6-dev|linux-libc-dev|libcrypt-dev|lib(stdc\+\+|gcc)-[0-9]+-dev|(gcc|g\+\+|cpp)-[0-9]+)$ ]] && continue
    grep -qx "$p" <<<"$covered" || missing+=("$p ($(awk -v p="$p" '$1 == p {print $2; exit}' <<<"$owners"))")
  done
  ((${#missing[@]} == 0)) || fail "$(basename "$deb"): Depends lacks ${missing[*]}, which the consumer used"
  ok "$(basename "$deb"): Depends covers the $(wc -l <<<"$owners") system files the consumer used"
}

# Every shared library the ELF files link must come from a package in Depends.
check_deb_covers_needed_libraries() {
  local deb=$1 elf soname path owners needed=()
  shift
  for elf in "$@"; do
    for soname in $(objdump -p "$elf" | awk '$1 == "NEEDED" {print $2}'); do
      # "soname => path (address)", or "path (address)" for the dynamic loader
      path=$(ldd "$elf" | awk -v s="$soname" '$1 == s {print $3} $1 ~ "/" s "$" {print $1}')
      [ -n "$path" ] || fail "$elf links $soname, which is not installed here"
      needed+=("$path")
    done
  done
  owners=$("$py" "$checks" owners "${needed[@]}") || fail "${owners#FAIL: }"
  # shellcheck disable=SC2046
  check_deb_declares "$deb" $(awk '{print $1}' <<<"$owners" | sort -u)
}

check_tools_run() {
  local gpgpu=$1 version=$2 dir=$3 alpha
  mkdir -p "$dir"
  [ "$("$gpgpu" --version)" = "gpgpu $version" ] || fail "gpgpu --version: $("$gpgpu" --version)"
  "$gpgpu" info >"$dir/info.txt" 2>&1 || { cat "$dir/info.txt"; fail "gpgpu info failed"; }
  grep -qi renderer "$dir/info.txt" || fail "gpgpu info printed no renderer"
  alpha=$("$py" "$checks" saxpy-inputs "$dir")
  (cd "$dir" && "$gpgpu" run "$repo/examples/kernels/saxpy.comp" x=x.npy y=y.npy \
      --out y=y2.npy --set alpha="$alpha" >run.txt 2>&1) || { cat "$dir/run.txt"; fail "gpgpu run failed"; }
  "$py" "$checks" saxpy-check "$dir" "$alpha"
  ok "gpgpu $version from the unpacked gpgpu-tools: info ($(grep -i -m1 renderer "$dir/info.txt" | sed 's/^ *//'))"
}

check_man_page() {
  local page=$1 version=$2 text
  text=$(zcat "$page") || fail "$page is not gzip"
  grep -q "^\.TH GPGPU \"1\" .*\"gpgpu $version\"" <<<"$text" || fail "$page: no .TH line of gpgpu $version"
  grep -q '^\.SH ENVIRONMENT' <<<"$text" && grep -q 'GPGPU_DEVICE' <<<"$text" ||
    fail "$page: no ENVIRONMENT section"
  grep -q '^\.SH EXAMPLES' <<<"$text" || fail "$page: no EXAMPLES section"
  ok "the man page documents gpgpu $version ($(grep -c '^\.SH' <<<"$text") sections)"
}

# Imports gpgpu with PYTHON from the current directory (not the source tree): it must come
# from PACKAGE_DIR, carry the project's version, make a Context, and run the README's
# example with the output the README states.
check_python_module() {
  local python=$1 package_dir=$2 version=$3 expected got
  got=$("$python" -c 'import gpgpu, os; print(os.path.realpath(gpgpu.__file__), gpgpu.__version__); print(gpgpu.Context())') ||
    fail "import gpgpu; gpgpu.Context() failed with $python"
  [[ "$(head -1 <<<"$got")" == "$(realpath "$package_dir")"/*" $version" ]] ||
    fail "gpgpu imported as '$(head -1 <<<"$got")', expected from $package_dir, version $version"
  expected=$("$py" "$checks" readme-example "$repo/README.md" readme_example.py) || fail "${expected#FAIL: }"
  got=$("$python" readme_example.py) || fail "the README's Python example failed with $python"
  [ "$got" = "$expected" ] || fail "the README's Python example printed '$got', the README says '$expected'"
  ok "$python: gpgpu $version from $package_dir; the README's example prints $got"
}

check_wheel() { "$py" "$checks" wheel "$1" "$2" || exit 1; }

# A copy of DEB with one thing broken: remove FILE, depends NAME (dropped from Depends),
# or version V. Prints the broken copy's path.
broken_deb() {
  local deb=$1 dir=$2 how=$3 what=$4
  rm -rf "$dir"
  mkdir -p "$dir"
  dpkg-deb -R "$deb" "$dir/tree"
  case $how in
    remove) rm "$dir/tree/$what" ;;
    depends) "$py" "$checks" drop-depends "$dir/tree/DEBIAN/control" "$what" ;;
    version) sed -i "s/^Version: .*/Version: $what/" "$dir/tree/DEBIAN/control" ;;
  esac
  dpkg-deb -Znone -b "$dir/tree" "$dir/$(basename "$deb")" >/dev/null
  echo "$dir/$(basename "$deb")"
}

broken_wheel() { "$py" "$checks" break-wheel "$1" "$2"; }

# Runs a check that must fail, in a subshell; it must fail naming REASON.
refuse() {
  local what=$1 reason=$2 log
  shift 2
  if log=$("$@" 2>&1); then
    fail "the checks accepted $what"
  fi
  grep -q "FAIL:.*$reason" <<<"$log" || { echo "$log"; fail "$what was refused, not for $reason"; }
  ok "refused $what: $(grep -m1 FAIL: <<<"$log")"
}
