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
# Then the ICRC: `rocenic icrc` must print every frame's ICRC as tshark shows it (see the end).
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
