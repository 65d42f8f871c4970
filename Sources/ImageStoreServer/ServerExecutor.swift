import NIOPosix

/// The threads the server's tasks run on, apart from the process's cooperative pool.
///
/// The demo and the tests run the server in the same process as the client they exercise, and the
/// cooperative pool has one thread a core: two on a small machine. A request whose work does not
/// suspend for a while (parsing a multipart body of several megabytes in a debug build) would hold
/// one of those threads, and with the machine busy the client's own tasks, their timers included,
/// would wait behind it until its timeout fired. On threads of its own, the server's work shares the
/// processor with the client's as two processes would, through the kernel's scheduler.
///
/// One executor serves every server of the process; its threads live as long as the process, idle
/// when no server runs (as NIO's singleton event loops do), so no job can ever arrive after they end.
final class ServerExecutor: TaskExecutor {
    static let shared = ServerExecutor(threads: 2)

    private let pool: NIOThreadPool

    private init(threads: Int) {
        pool = NIOThreadPool(numberOfThreads: threads)
        pool.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        pool.submit { _ in job.runSynchronously(on: executor) }
    }
}
