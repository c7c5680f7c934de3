//! The PostgreSQL cluster the tests start themselves (`omni_tests::postgres`): it takes
//! connections with its password and no others, and holds what was committed across a
//! crash of the server (stopped at once, started again).

use omni_tests::postgres::PgCluster;

/// Connects with `password`; the connection's task runs beside.
async fn connect(cluster: &PgCluster, password: &str) -> Result<tokio_postgres::Client, String> {
    let mut config: tokio_postgres::Config = cluster.url().parse().map_err(|e| format!("{e}"))?;
    config.password(password);
    let (client, connection) = config
        .connect(tokio_postgres::NoTls)
        .await
        .map_err(|e| match e.as_db_error() {
            Some(db) => db.message().to_string(),
            None => e.to_string(),
        })?;
    tokio::spawn(connection);
    Ok(client)
}

#[test]
fn the_tests_cluster_takes_its_password_only_and_keeps_what_was_committed() {
    let cluster = PgCluster::start();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let refused = connect(&cluster, "not-the-password").await.err();
        let why = refused.expect("a wrong password is refused");
        assert!(why.contains("password authentication failed"), "{why}");

        let client = connect(&cluster, cluster.password())
            .await
            .expect("connect");
        client
            .batch_execute("CREATE TABLE kept (id int PRIMARY KEY); INSERT INTO kept VALUES (7)")
            .await
            .expect("commit");
    });
    cluster.stop();
    cluster.restart();
    runtime.block_on(async {
        let client = connect(&cluster, cluster.password())
            .await
            .expect("reconnect");
        let row = client.query_one("SELECT id FROM kept", &[]).await.unwrap();
        assert_eq!(row.get::<_, i32>(0), 7);
    });
}
