def test_execute(conn):
    conn.execute("select 1")


def test_query(session, conn):
    session.query(conn)
