"""Turn connection options (kubeconfig file or dict, context, host, token, CA) into a client Configuration.

Option names and precedence follow kubernetes.core: explicit options override what the kubeconfig says;
without any kubeconfig we try ``KUBECONFIG``/``~/.kube/config``, then the in-cluster service account.
"""
import os

from .errors import KubeConfigError


def _kubernetes():
    try:
        from kubernetes import client, config
    except ImportError as exc:
        raise KubeConfigError("the 'kubernetes' Python package is required: %s" % exc) from exc
    return client, config


def load_configuration(kubeconfig=None, context=None, host=None, api_key=None, ca_cert=None,
                       validate_certs=None, proxy=None):
    """Return a ``kubernetes.client.Configuration`` for these options (``None`` means unset)."""
    client, config = _kubernetes()
    cfg = client.Configuration()
    explicit_host = bool(host)
    try:
        if isinstance(kubeconfig, dict):
            config.load_kube_config_from_dict(kubeconfig, context=context, client_configuration=cfg,
                                              persist_config=False)
        elif kubeconfig or not explicit_host:
            paths = kubeconfig or os.environ.get("KUBECONFIG") or os.path.expanduser("~/.kube/config")
            first = os.path.expanduser(str(paths).split(os.pathsep)[0])
            if kubeconfig or os.path.exists(first):
                if not os.path.exists(first):
                    raise KubeConfigError("kubeconfig %s: no such file" % first)
                config.load_kube_config(config_file=os.path.expanduser(str(paths)), context=context,
                                        client_configuration=cfg, persist_config=False)
            elif os.environ.get("KUBERNETES_SERVICE_HOST"):
                config.load_incluster_config(client_configuration=cfg)
            else:
                raise KubeConfigError("no kubeconfig found (%s) and no host given" % first)
    except KubeConfigError:
        raise
    except Exception as exc:  # the kubernetes loader raises many kinds for a malformed file
        where = "inline kubeconfig" if isinstance(kubeconfig, dict) else "kubeconfig %s" % (kubeconfig or "")
        raise KubeConfigError("invalid %s: %s" % (where.strip(), exc)) from exc
    if explicit_host:
        cfg.host = host
    if api_key:
        cfg.api_key = {"authorization": api_key}
        cfg.api_key_prefix = {"authorization": "Bearer"}
    if ca_cert:
        cfg.ssl_ca_cert = os.path.expanduser(ca_cert)
    if validate_certs is not None:
        cfg.verify_ssl = bool(validate_certs)
    if proxy:
        cfg.proxy = proxy
    if not cfg.host:
        raise KubeConfigError("no API server host in the connection options or kubeconfig")
    return cfg
