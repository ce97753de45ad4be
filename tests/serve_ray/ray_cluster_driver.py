"""Runs examples/ray_serve's deployment on a local Ray cluster of two nodes (ray.cluster_utils:
a head and one more node, each its own raylet and processes, one CPU each), two replicas, Ray
Serve's HTTP proxy on PORT; prints "ready" when the deployment is up, and tears everything down
(Serve, then the cluster's processes) when its stdin closes. Run by test_ray_serve.py in
build/ray-venv with build/python on PYTHONPATH:

    ray_cluster_driver.py MODEL.pt2 NAME PORT
"""
import pathlib
import sys

import ray
from ray import serve
from ray.cluster_utils import Cluster

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "examples" / "ray_serve"))
from pt2ov_ray_serve import Pt2ovModel  # noqa: E402


def main() -> None:
    model, name, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    cluster.add_node(num_cpus=1)
    try:
        ray.init(address=cluster.address, log_to_driver=False)
        serve.start(http_options={"host": "127.0.0.1", "port": port})
        app = Pt2ovModel.options(num_replicas=2, ray_actor_options={"num_cpus": 1}).bind(
            model, name, {"measure_placement": False})
        serve.run(app, name=name, route_prefix="/")
        nodes = {node["NodeID"] for node in ray.nodes() if node["Alive"]}
        print(f"ready {len(nodes)} nodes", flush=True)
        sys.stdin.read()
    finally:
        serve.shutdown()
        ray.shutdown()
        cluster.shutdown()


if __name__ == "__main__":
    main()
