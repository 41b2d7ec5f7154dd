"""CPU-bound work on a Dask cluster: ``executor=`` hands a route's handler to the cluster's
workers, so that the work outgrows one machine while the server's event loop stays free.

    dask scheduler                                   # or a LocalCluster, Dask's operator, ...
    PYTHONPATH=. dask worker tcp://127.0.0.1:8786    # from the checkout: it imports work.py
    DASK_SCHEDULER=tcp://127.0.0.1:8786 hasten run examples.recipes.cluster.app:app --workers 2
"""
