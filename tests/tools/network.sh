# Sourced by tests/tools/reapi/fixture.sh and tests/tools/sccache_dist.sh
# (test tools, not part of FastCuda): network namespaces that stand in for
# other machines, each joined to the host by a veth pair. Needs root; the
# caller checks that first.
#
# Before sourcing, set optionally bots (how many namespaces, 1 to 4).
# Then: start_network (namespace 1, $netns, made by the caller first, whose
# `ip netns add` tells whether namespaces can be made here), stop_network.
# Namespace N is $(netns N): the host is $(host_addr N) on its pair, the
# namespace $(bot_addr N). Each namespace's default route leads to its pair's
# host address, so that it reaches every address of the host: a server
# bound to $(host_addr 1) serves every namespace.
bots=${bots:-1}

free_port() {  # FROM: the first port from FROM on that nothing listens on
  local port=$1
  while (exec 3<> "/dev/tcp/127.0.0.1/$port") 2> /dev/null; do port=$((port + 1)); done
  echo "$port"
}
wait_for() {  # SECONDS COMMAND...: true once COMMAND is, false after SECONDS
  local end=$((SECONDS + $1))
  shift
  until "$@" 2> /dev/null; do
    [ "$SECONDS" -lt "$end" ] || return 1
    sleep 0.2
  done
}
listening() { (exec 3<> "/dev/tcp/${2:-127.0.0.1}/$1"); }  # PORT [ADDRESS]
# Names and addresses of this run's own (from $$), so that runs at once do
# not clash: 16 addresses of 10.64.0.0/10 per process id (a /30 per
# namespace), every bit of the id up to 2^18 kept apart.
netns() { echo "fastcuda-net-$$-$1"; }
subnet() {
  local base=$((($$ % 262144) * 16 + ($1 - 1) * 4))
  echo "10.$((64 + base / 65536)).$((base / 256 % 256)).$((base % 256))"
}
host_addr() { local s; s=$(subnet "$1"); echo "${s%.*}.$((${s##*.} + 1))"; }
bot_addr() { local s; s=$(subnet "$1"); echo "${s%.*}.$((${s##*.} + 2))"; }
netns=$(netns 1)

start_network() {  # each namespace, joined to the host by a veth pair ($netns, the first, made by the caller)
  local n ns
  for n in $(seq "$bots"); do
    ns=$(netns "$n")
    [ "$n" = 1 ] || ip netns add "$ns" || return 1
    ip link add "fcrh$$-$n" type veth peer name "fcrb$$-$n" netns "$ns" &&
      ip addr add "$(host_addr "$n")/30" dev "fcrh$$-$n" && ip link set "fcrh$$-$n" up &&
      ip -n "$ns" addr add "$(bot_addr "$n")/30" dev "fcrb$$-$n" && ip -n "$ns" link set "fcrb$$-$n" up &&
      ip -n "$ns" link set lo up && ip -n "$ns" route add default via "$(host_addr "$n")" || return 1
  done
}
stop_network() {
  local n
  for n in $(seq "$bots"); do
    ip netns delete "$(netns "$n")" 2> /dev/null || true
    ip link delete "fcrh$$-$n" 2> /dev/null || true
  done
}
