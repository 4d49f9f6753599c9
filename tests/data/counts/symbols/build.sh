#!/bin/sh
# Rebuilds prog and prog-pie from prog.c, writes the backtraces under results/ and
# results-pie/ from the binaries' own return addresses (objdump) and records what
# addr2line (binutils) says of them in addr2line.txt. Run from this directory; gcc 12.2
# and binutils 2.40 (Debian 12) made the committed files. Tests never run this script.
set -eu
gcc -g -O0 -no-pie -fdebug-prefix-map="$PWD"=/src/symbols -o prog prog.c
gcc -g -O0 -fPIE -pie -fdebug-prefix-map="$PWD"=/src/symbols -o prog-pie prog.c

# the return address of a call: the address of the instruction after it. $2 is the
# callee, $3 which of its calls in the caller (1st, 2nd), $1 the caller.
ret() {
    objdump -d --no-show-raw-insn "$BIN" | awk -v caller="<$1>:" -v callee="<$2>" -v nth="$3" '
        /^[0-9a-f]+ <.*>:$/ { inside = ($2 == caller) }
        inside && found { sub(":", "", $1); print "0x" $1; exit }
        inside && $2 == "call" && $NF == callee && ++n == nth { found = 1 }'
}
start_ret() {  # the return address of _start's call to __libc_start_main
    objdump -d --no-show-raw-insn "$BIN" | awk '
        /^[0-9a-f]+ <.*>:$/ { inside = ($2 == "<_start>:") }
        inside && found { sub(":", "", $1); print "0x" $1; exit }
        inside && $2 == "call" && /__libc_start_main/ { found = 1 }'
}

# frame MODULE ADDRESS: a program frame as glibc's backtrace_symbols writes it: "module()
# [address]" for the non-PIE program (load bias 0), "module(+offset) [load + offset]" for
# the PIE one (loaded at 0x55d0a1c00000 in this made-up run)
frame() {
    if [ "$BIN" = prog ]; then
        printf './prog() [%s]\n' "$1"
    else
        printf './prog-pie(+%s) [0x%x]\n' "$1" $(( 0x55d0a1c00000 + $1 ))
    fi
}

trace() {  # trace T CALLS INNER-CALLER NTH OUTER...
    t=$1; calls=$2; caller=$3; nth=$4
    {
        printf 'FORMAT_VERSION: 9\n\nstack trace for /src/symbols/%s pid=4242\n\n# Trace\n\n' "$BIN"
        echo '/opt/collective_profiler/src/alltoallv/liballtoallv_backtrace.so(_mpi_alltoallv+0xd4) [0x7f1c2a864bc4]'
        echo '/opt/collective_profiler/src/alltoallv/liballtoallv_backtrace.so(MPI_Alltoallv+0x7d) [0x7f1c2a865028]'
        frame "$(ret "$caller" collective "$nth")"
        frame "$(ret solve "$caller" 1)"
        frame "$(ret main solve 1)"
        echo '/lib64/libc.so.6(__libc_start_main+0xf5) [0x7f1c2a0a9555]'
        frame "$(start_ret)"
        printf '\n# Context 0\n\nCommunicator: 0\nCommunicator rank: 0\nCOMM_WORLD rank: 0\nCalls: %s\n' "$calls"
    } > "$OUT/alltoallv_backtrace_rank0_trace$t.md"
}

: > addr2line.txt
: > nm.txt
for BIN in prog prog-pie; do
    OUT=results; [ "$BIN" = prog-pie ] && OUT=results-pie
    mkdir -p "$OUT"
    # the function symbols: binary, start, size, type, name
    nm -S --defined-only "$BIN" | awk -v bin="$BIN" 'NF == 4 && $3 ~ /^[tT]$/ { print bin, $0 }' >> nm.txt
    trace 0 "0, 3, 6" exchange_halo 1
    trace 1 "1, 4, 7" transpose 1
    trace 2 "2, 5, 8" transpose 2
    # the counts of calls 0-8 in the profiler's compact form (made up: 4 ranks, every call
    # the same counts), so the directory reads as a profile
    for side in send recv; do
        printf '# Raw counters\n\nNumber of ranks: 4\nDatatype size: 4\nAlltoallv calls 0-8\nCount: 9 calls - 0-8\n\n\nBEGINNING DATA\nRank(s) 0-3: 1 2 3 4 \nEND DATA\n' > "$OUT/$side-counters.job0.rank0.txt"
    done
    # addr2line of each program frame's address minus one (the call instruction)
    # (the non-PIE frame's address, the PIE frame's offset: each is the file's address)
    for a in $(sed -n 's/^\.\/prog() \[\(0x[0-9a-f]*\)\]$/\1/p; s/^\.\/prog-pie(+\(0x[0-9a-f]*\)).*/\1/p' "$OUT"/*.md | sort -u); do
        printf '%s %s 0x%x ' "$BIN" "$a" $(( a - 1 )) >> addr2line.txt
        addr2line -f -e "$BIN" $(printf '0x%x' $(( a - 1 ))) | tr '\n' ' ' | sed 's/ $//' >> addr2line.txt
        echo >> addr2line.txt
    done
done
