# Stand-ins for boto3, botocore and pycurl (a test tool, not part of FastCuda):
# BuildGrid 0.4 imports them at start for its S3 storage, which the bench's
# server does not use. bench/remote_build.sh installs BuildGrid without them
# (23 MiB less to carry to a machine without network) and puts these
# modules in their place. Any name taken from them is a class whose
# instances take any call; an exception class where the name says so.


class Anything:
    def __init__(self, *args, **kwargs):
        pass

    def __getattr__(self, name):
        return lambda *args, **kwargs: None


def stub(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return type(name, (Exception,) if name.endswith(("Error", "Exception")) else (Anything,), {})
