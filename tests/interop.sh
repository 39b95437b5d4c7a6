#!/usr/bin/env bash
# make interop: the TSO segments, as the RTL and the model write them, read by Wireshark's tshark
# with IPv4 and TCP checksum validation on. Fails on any bad or unchecked checksum, malformed
# packet or expert error, and when the two engines disagree on a single byte.
#
# Ethernet (link type 1) goes to tshark as written. IPoIB (link type 242, frames starting at the
# 4-byte RFC 4391 header): tshark 4.0 reads link type 242 with a 40-byte pseudo-GRH in front of
# that header, so the 4 bytes are cut off (editcap -C 4 -T rawip) and tshark checks the IP
# packets. No checksum covers the link header; the co-simulation tests check the IPoIB header
# bytes against the model.
#
# A negative control runs first: the same check on a copy with bit errors must fail, or the
# check proves nothing.
#
# Then the ICRC: `rocenic icrc` must print every frame's ICRC as tshark shows it.
#
# Last, RoCEv2: the frames of `rocenic send` scenarios (the documented examples and a generated
# one of every opcode, family, VLAN and path MTU), from the model and byte-identical from the
# co-simulated RTL engine, and the wire of `rocenic sim` (the main job), read by tshark as RoCEv2,
# with their own negative controls (see "RoCEv2" below).
set -euo pipefail
cd "$(dirname "$0")/.."

ROCENIC=${ROCENIC:-target/debug/rocenic}
DIR=build/interop
MSS_LIST=(536 1448 9000)
TSHARK=(tshark -n -o ip.check_checksum:TRUE -o tcp.check_checksum:TRUE)

rm -rf "$DIR"
cargo run -q -p rocenic --example tso_sample -- "$DIR" 2>/dev/null

# check FILE: prints why and returns 1 unless every frame is clean.
check() {
    local file=$1 frames good bad expert
    frames=$(capinfos -c -M "$file" | awk '/Number of packets/ { print $NF }')
    good=$("${TSHARK[@]}" -r "$file" -Y 'tcp.checksum.status == 1' -T fields -e frame.number \
        2>/dev/null | wc -l)
    bad=$("${TSHARK[@]}" -r "$file" -T fields -e frame.number -Y \
        'tcp.checksum.status != 1 || ip.checksum.status == 0 || ip.checksum.status == 2 || _ws.malformed || _ws.expert.severity == error' \
        2>/dev/null | wc -l)
    expert=$("${TSHARK[@]}" -r "$file" -q -z expert,error 2>/dev/null | grep -c '^Errors' || true)
    if [[ $frames -eq 0 || $good -ne $frames || $bad -ne 0 || $expert -ne 0 ]]; then
        echo "interop: $file: $frames frames, $good with a good TCP checksum, $bad bad or malformed, expert errors: $expert" >&2
        return 1
    fi
    echo "interop: $file: $frames segments, every IPv4 and TCP checksum good, no expert error"
}

as_raw_ip() { editcap -C 4 -T rawip "$1" "$2"; }

total=0
for mss in "${MSS_LIST[@]}"; do
    for link in eth ipoib; do
        "$ROCENIC" tso --input "$DIR/$link.pcap" --output "$DIR/$link-model-$mss.pcap" --mss "$mss" --engine model 2>/dev/null
        "$ROCENIC" tso --input "$DIR/$link.pcap" --output "$DIR/$link-rtl-$mss.pcap" --mss "$mss" --engine rtl 2>/dev/null
        cmp "$DIR/$link-model-$mss.pcap" "$DIR/$link-rtl-$mss.pcap"
        file="$DIR/$link-rtl-$mss.pcap"
        if [[ $link == ipoib ]]; then
            as_raw_ip "$file" "$DIR/ipoib-raw-$mss.pcap"
            file="$DIR/ipoib-raw-$mss.pcap"
        fi
        if [[ $total -eq 0 ]]; then
            editcap -E 0.0005 "$file" "$DIR/corrupt.pcap" >/dev/null
            if check "$DIR/corrupt.pcap" 2>/dev/null >/dev/null; then
                echo "interop: the negative control passed: the check cannot see bad checksums" >&2
                exit 1
            fi
        fi
        check "$file"
        total=$((total + 1))
    done
done
echo "interop: $total files clean (RTL and model byte-identical, MSS ${MSS_LIST[*]})"

# The ICRC as Wireshark shows it: for every frame of a RoCEv2 sample, `rocenic icrc` prints as
# `stored` what tshark shows as `Invariant CRC`, and calls bad exactly the frames the sample
# planted a flipped bit in (every fifth, from frame 0; Wireshark does not check the ICRC).
cargo run -q -p rocenic --example roce_sample -- "$DIR" 40 2>/dev/null
status=0
"$ROCENIC" icrc "$DIR/roce.pcap" > "$DIR/roce-icrc.csv" || status=$?
if [[ $status -ne 1 ]]; then
    echo "interop: rocenic icrc exited $status on a sample with bad ICRCs (want 1)" >&2
    exit 1
fi
ours=$(tail -n +2 "$DIR/roce-icrc.csv" | cut -d, -f2)
theirs=$(tshark -n -r "$DIR/roce.pcap" -T fields -e infiniband.invariant.crc 2>/dev/null)
if [[ -z $ours || $ours != "$theirs" ]]; then
    echo "interop: rocenic icrc's stored ICRCs differ from tshark's Invariant CRC:" >&2
    diff <(echo "$ours") <(echo "$theirs") >&2 || true
    exit 1
fi
bad=$(awk -F, 'NR > 1 && $4 == "bad" { printf "%s ", $1 }' "$DIR/roce-icrc.csv")
if [[ $bad != "0 5 10 15 20 25 30 35 " ]]; then
    echo "interop: rocenic icrc calls frames [$bad] bad; the sample planted 0 5 10 ... 35" >&2
    exit 1
fi
echo "interop: 40 RoCEv2 frames: every ICRC printed as tshark shows it; the 8 planted bad ones found"

# RoCEv2: the send engine's frames read by tshark, which dissects UDP port 4791 as RoCEv2 (BTH and
# the extension headers) without being told. Scenarios: the two documented examples, and a
# generated one with RC SEND, SEND with immediate, RDMA WRITE and WRITE with immediate of 0 to
# 9000 bytes over path MTUs of 256 and 4096 (FIRST/MIDDLE/LAST), IPv4 and IPv6, with and without
# a VLAN tag, and UD SENDs with DETH to both families, tagged and not, gathered and inline.
#
# Clean means: every frame dissected as InfiniBand, no malformed packet, every IPv4 header
# checksum good, and no expert error except one: "Illegal checksum value (0)" on the UDP header of
# an IPv6 frame whose UDP checksum is 0. RoCEv2 senders (rxe among them) put 0 there and rely on
# the ICRC; computing it would force the engine to hold a whole packet before sending its header.
# That exception is matched on the message, the family and the checksum value, nothing broader.
# Then `rocenic icrc` must find every ICRC good and print each as tshark's Invariant CRC.
#
# The payload is the scenario's data (counter bytes), so tshark is told not to guess a protocol
# in it: three heuristics of its InfiniBand dissector otherwise read some payloads as their own
# and call them malformed. RPC-over-RDMA throws on any SEND of fewer than 4 payload bytes
# (rpcrdma_infiniband), and Mellanox EoIB and "EtherType over InfiniBand" take a payload whose
# first bytes happen to read as an EtherType such as 0x8100 (mellanox_eoib, eth_over_ib). They
# look at the payload only, after BTH, RETH, DETH and ImmDt are dissected.
#
# Two negative controls, one per rule: a copy with one IPv4 TTL changed (its header checksum
# goes bad) and a copy with one IPv6 UDP checksum set to 0x1234 (no longer the accepted zero)
# must both fail the check.
TSHARK_ROCE=(tshark -n -o ip.check_checksum:TRUE -o udp.check_checksum:TRUE
    --disable-heuristic rpcrdma_infiniband --disable-heuristic mellanox_eoib
    --disable-heuristic eth_over_ib)

gen_scenario() {
    local k=0 qpn fam vlan mtu op size ip fl
    printf '[nic]\nmac = "02:00:00:00:00:01"\nip = ["10.1.0.1", "fd01::1"]\n\n'
    printf '[[memory]]\naddr = 0x100000\nsize = 0x10000\nfill = "counter"\n\n'
    printf '[[mr]]\nlkey = 0x100\npd = 1\naddr = 0x100000\nlength = 0x10000\n\n'
    for fam in 4 6; do
        for vlan in none 10; do
            for mtu in 256 4096; do
                qpn=$((0x100 + k))
                if [[ $fam == 4 ]]; then ip="10.1.0.$((k + 2))"; else ip="fd01::$((k + 2))"; fi
                fl=$(( fam == 6 && k % 2 == 1 ? 0x54321 : 0 ))
                printf '[[qp]]\nqpn = %d\ntype = "rc"\npd = 1\nmtu = %d\npsn = %d\ndest_qpn = %d\n' \
                    "$qpn" "$mtu" $((0xfffff0 + k)) $((0x200 + k))
                printf 'av = { ip = "%s", mac = "02:00:00:00:01:%02x", flow_label = %d' "$ip" "$k" "$fl"
                [[ $vlan == none ]] || printf ', vlan = %d, pcp = 3' "$vlan"
                printf ', tclass = 0x%02x, hop_limit = %d }\n\n' $((k * 8)) $((32 + k))
                k=$((k + 1))
            done
        done
    done
    printf '[[qp]]\nqpn = 0x180\ntype = "ud"\npd = 1\nqkey = 0x1111\n\n'
    printf '[[qp]]\nqpn = 0x181\ntype = "ud"\npd = 1\nmtu = 4096\n\n'
    local id=0
    for ((q = 0; q < k; q++)); do
        for op in send send_imm rdma_write rdma_write_imm; do
            for size in 0 1 255 256 257 4096 9000; do
                id=$((id + 1))
                printf '[[wr]]\nqpn = %d\nid = %d\nopcode = "%s"\n' $((0x100 + q)) "$id" "$op"
                ((size == 0)) || printf 'sge = [{ addr = 0x%x, length = %d, lkey = 0x100 }]\n' \
                    $((0x100000 + id * 3)) "$size"
                [[ $op != *_imm ]] || printf 'imm = %d\n' $((0x10000 + id))
                [[ $op != rdma_write* ]] || printf 'remote_addr = 0x%x\nrkey = 0x55\n' $((0x7000000 + id * 0x10000))
                ((id % 3)) || printf 'solicited = true\n'
                printf '\n'
            done
        done
    done
    for q in 0x180 0x181; do
        for fam in 4 6; do
            for vlan in none 20; do
                for op in send send_imm; do
                    for size in 0 1 100 1024 inline; do
                        id=$((id + 1))
                        printf '[[wr]]\nqpn = %s\nid = %d\nopcode = "%s"\n' "$q" "$id" "$op"
                        case $size in
                            0) ;;
                            inline) printf 'inline = "0123456789abcdef01"\n' ;;
                            *) printf 'sge = [{ addr = 0x%x, length = %d, lkey = 0x100 }]\n' $((0x100000 + id)) "$size" ;;
                        esac
                        [[ $op != *_imm ]] || printf 'imm = %d\n' "$id"
                        if [[ $fam == 4 ]]; then ip="10.1.1.$((id % 200 + 1))"; else ip="fd01::1:$id"; fi
                        printf 'av = { ip = "%s", mac = "02:00:00:00:02:01", qpn = %d' "$ip" $((0x300 + id))
                        ((id % 2)) || printf ', qkey = 0x2222'
                        [[ $vlan == none ]] || printf ', vlan = %d, pcp = 5' "$vlan"
                        printf ' }\n\n'
                    done
                done
            done
        done
    done
}

# check_roce FILE: prints why and returns 1 unless every frame is clean (see above).
check_roce() {
    local file=$1 frames ib malformed badip verdict
    frames=$(capinfos -c -M "$file" | awk '/Number of packets/ { print $NF }')
    ib=$("${TSHARK_ROCE[@]}" -r "$file" -Y infiniband -T fields -e frame.number 2>/dev/null | wc -l)
    malformed=$("${TSHARK_ROCE[@]}" -r "$file" -Y _ws.malformed -T fields -e frame.number 2>/dev/null | wc -l)
    badip=$("${TSHARK_ROCE[@]}" -r "$file" -Y 'ip && ip.checksum.status != 1' -T fields -e frame.number 2>/dev/null | wc -l)
    # Per frame: its IPv6 version field (empty for IPv4), UDP checksum, and every expert item's
    # severity and message; error severity is 8388608 (PI_ERROR).
    verdict=$("${TSHARK_ROCE[@]}" -r "$file" -T fields -E 'aggregator=|' -e frame.number -e ipv6.version \
        -e udp.checksum -e _ws.expert.severity -e _ws.expert.message 2>/dev/null | awk -F'\t' '
        { n = split($4, sev, "|"); split($5, msg, "|")
          for (i = 1; i <= n; i++) {
              if (sev[i] != 8388608) continue
              if (msg[i] == "Illegal checksum value (0)" && $2 == "6" && $3 == "0x0000") accepted++
              else { errors++; if (!first) first = "frame " $1 ": " msg[i] }
          }
          if ($2 == "6") v6++ }
        END { printf "%d %d %d %s\n", errors, accepted, v6, first }')
    read -r errors accepted v6 first <<<"$verdict"
    if [[ $frames -eq 0 || $ib -ne $frames || $malformed -ne 0 || $badip -ne 0 || $errors -ne 0 || $accepted -ne $v6 ]]; then
        echo "interop: $file: $frames frames, $ib dissected as RoCEv2, $malformed malformed, $badip bad IPv4 header checksums, $errors expert errors ($first), $accepted of $v6 IPv6 frames with only the accepted zero-checksum note" >&2
        return 1
    fi
    echo "interop: $file: $frames RoCEv2 frames ($v6 IPv6), none malformed, every IPv4 header checksum good, no expert error but the $accepted IPv6 zero UDP checksums"
}

# poke FILE FRAME OFFSET BYTE: overwrites one byte of frame FRAME (from 1) of a pcap.
poke() {
    local file=$1 frame=$2 offset=$3 byte=$4 at=24
    while read -r n len; do
        if ((n == frame)); then break; fi
        at=$((at + 16 + len))
    done < <(tshark -n -r "$file" -T fields -e frame.number -e frame.cap_len 2>/dev/null)
    printf "\\x$(printf %02x "$byte")" | dd of="$file" bs=1 seek=$((at + 16 + offset)) conv=notrunc status=none
}

gen_scenario > "$DIR/send-gen.toml"
roce_files=()
for scenario in docs/examples/send.toml docs/examples/send_errors.toml "$DIR/send-gen.toml"; do
    name=$(basename "$scenario" .toml)
    "$ROCENIC" send --engine model --scenario "$scenario" --output "$DIR/$name.pcap" \
        --completions "$DIR/$name.csv" 2>/dev/null
    # The co-simulated engine must write the same two files, byte for byte.
    "$ROCENIC" send --engine rtl --scenario "$scenario" --output "$DIR/$name-rtl.pcap" \
        --completions "$DIR/$name-rtl.csv" 2>/dev/null
    if ! cmp -s "$DIR/$name.pcap" "$DIR/$name-rtl.pcap" || ! cmp -s "$DIR/$name.csv" "$DIR/$name-rtl.csv"; then
        echo "interop: $scenario: the RTL's frames or completions differ from the model's" >&2
        exit 1
    fi
    roce_files+=("$DIR/$name.pcap")
done
# A raw-packet QP's SENDs and TSO request (frames that are not RoCEv2, so not among the files
# tshark reads as RoCEv2 below): the two engines must agree byte for byte too.
"$ROCENIC" send --engine model --scenario docs/examples/raw.toml --output "$DIR/raw.pcap" \
    --completions "$DIR/raw.csv" 2>/dev/null
"$ROCENIC" send --engine rtl --scenario docs/examples/raw.toml --output "$DIR/raw-rtl.pcap" \
    --completions "$DIR/raw-rtl.csv" 2>/dev/null
if ! cmp -s "$DIR/raw.pcap" "$DIR/raw-rtl.pcap" || ! cmp -s "$DIR/raw.csv" "$DIR/raw-rtl.csv"; then
    echo "interop: docs/examples/raw.toml: the RTL's frames or completions differ from the model's" >&2
    exit 1
fi
echo "interop: rocenic send --engine rtl wrote the model's frames and completions, byte for byte, for $((${#roce_files[@]} + 1)) scenarios"

# The main job's wire: `rocenic sim` on its built-in mix (the co-simulated cores, the default
# engine of this build), both NICs' frames in wire order (RC and
# UD, IPv4 and IPv6, VLAN 100, TSO segments inside UD SENDs), checked below with the same rules;
# first every flow's UDP source port and flow label by `rocenic golden check-pcap`, with the QP
# map the run writes for its RC flows (exit status 0: no mismatch, no bad ICRC; it skips frames
# that are not RoCEv2).
"$ROCENIC" sim --out "$DIR/sim" > "$DIR/sim-summary.txt" 2>/dev/null
"$ROCENIC" golden check-pcap "$DIR/sim/run.pcap" --qp-map "$DIR/sim/qp-map.csv" \
    > "$DIR/sim-flows.csv" 2>/dev/null
if grep -q ',\(mismatch\|unknown\)$' "$DIR/sim-flows.csv"; then
    echo "interop: $DIR/sim/run.pcap: a flow whose entropy golden check-pcap cannot confirm" >&2
    exit 1
fi
echo "interop: rocenic sim: $(($(wc -l < "$DIR/sim-flows.csv") - 1)) flows, every one matching the linux profile"
# The run also carries a raw-packet QP's TSO stream: TCP over Ethernet and IPv6, no RoCE. Its
# frames are split off by what tshark dissects (InfiniBand or not) and checked as the TSO files
# above (every TCP checksum good, nothing malformed, no expert error); the rest must be every
# other frame and passes the RoCEv2 rules below. Both parts must be there.
tshark -n -r "$DIR/sim/run.pcap" -Y infiniband -w "$DIR/sim/roce.pcap" 2>/dev/null
tshark -n -r "$DIR/sim/run.pcap" -Y '!infiniband' -w "$DIR/sim/raw.pcap" 2>/dev/null
packets() { capinfos -c -M "$1" | awk '/Number of packets/ { print $NF }'; }
all=$(packets "$DIR/sim/run.pcap")
roce=$(packets "$DIR/sim/roce.pcap")
raw=$(packets "$DIR/sim/raw.pcap")
if [[ $roce -eq 0 || $raw -eq 0 || $((roce + raw)) -ne $all ]]; then
    echo "interop: $DIR/sim/run.pcap: $all frames, $roce RoCEv2 and $raw raw" >&2
    exit 1
fi
check "$DIR/sim/raw.pcap"
roce_files+=("$DIR/sim/roce.pcap")

gen="$DIR/send-gen.pcap"
# The negative controls, on the generated run.
# Comma-separated, so that an empty VLAN field stays a field.
v4=$(tshark -n -r "$gen" -Y ip -T fields -E separator=, -e frame.number -e vlan.id -e ip.ttl 2>/dev/null | head -1)
IFS=, read -r n vid ttl <<<"$v4"
cp "$gen" "$DIR/corrupt-ttl.pcap"
poke "$DIR/corrupt-ttl.pcap" "$n" $(( ${vid:+4} + 14 + 8 )) $((ttl ^ 1))
v6=$(tshark -n -r "$gen" -Y ipv6 -T fields -E separator=, -e frame.number -e vlan.id 2>/dev/null | head -1)
IFS=, read -r n vid <<<"$v6"
cp "$gen" "$DIR/corrupt-udp.pcap"
poke "$DIR/corrupt-udp.pcap" "$n" $(( ${vid:+4} + 14 + 40 + 6 )) 0x12
poke "$DIR/corrupt-udp.pcap" "$n" $(( ${vid:+4} + 14 + 40 + 7 )) 0x34
for control in corrupt-ttl corrupt-udp; do
    if check_roce "$DIR/$control.pcap" 2>/dev/null >/dev/null; then
        echo "interop: the negative control $control passed: the RoCEv2 check cannot see it" >&2
        exit 1
    fi
done

# The generated run covers what it claims.
count() { tshark -n -r "$gen" -Y "$1" -T fields -e frame.number 2>/dev/null | wc -l; }
for what in ip ipv6 vlan infiniband.reth infiniband.deth infiniband.immdt \
    'infiniband.bth.opcode == 1' 'infiniband.bth.opcode == 7' 'infiniband.bth.opcode == 9'; do
    if [[ $(count "$what") -eq 0 ]]; then
        echo "interop: $gen has no frame matching '$what'" >&2
        exit 1
    fi
done

for file in "${roce_files[@]}"; do
    check_roce "$file"
    status=0
    "$ROCENIC" icrc "$file" > "${file%.pcap}-icrc.csv" || status=$?
    ours=$(tail -n +2 "${file%.pcap}-icrc.csv" | cut -d, -f2)
    theirs=$("${TSHARK_ROCE[@]}" -r "$file" -T fields -e infiniband.invariant.crc 2>/dev/null)
    if [[ $status -ne 0 || -z $ours || $ours != "$theirs" ]]; then
        echo "interop: $file: rocenic icrc exited $status, or its ICRCs differ from tshark's Invariant CRC" >&2
        diff <(echo "$ours") <(echo "$theirs") >&2 || true
        exit 1
    fi
done
echo "interop: ${#roce_files[@]} captures (the send scenarios and the sim run) clean in tshark, every ICRC good and as tshark shows it; both negative controls caught"
