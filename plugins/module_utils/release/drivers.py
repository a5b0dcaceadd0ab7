"""Helm's ``HELM_DRIVER`` choice: Secrets, ConfigMaps or PostgreSQL, the last loaded only when chosen."""
from .storage import Storage


def open_storage(client, namespace, driver="secret", sql_connection=None):
    """The storage of ``driver``; ``sql`` connects with ``sql_connection`` or HELM_DRIVER_SQL_CONNECTION_STRING."""
    if driver == "sql":
        from .sql import SqlStorage  # psycopg and the SQL code only for tasks that use them
        return SqlStorage(namespace, sql_connection)
    return Storage(client, namespace, driver)
