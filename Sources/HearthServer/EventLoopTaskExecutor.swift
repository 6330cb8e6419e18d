import NIOCore
import NIOPosix

/// A task executor that runs each job on the SwiftNIO event loop of the thread that enqueued
/// it (or on the group's next loop, from any other thread): a call's task stays on the loop
/// that serves its connection.
///
/// With SwiftNIO installed as Swift concurrency's global executor, the loops run every job *on
/// their serial executor*, so each call into a `nonisolated` async function (which asks for
/// the generic executor) is a switch of executor: the task is queued on the loop again and
/// resumes on a later pass. grpc-swift's path for one call crosses ~130 such boundaries (its
/// async sequences, writers and cancellation handlers), each a trip through the loop's task
/// queue. Tasks that prefer this executor run on it as the generic executor with a task
/// executor preference, which those functions accept where they are: no switch, no trip.
final class EventLoopTaskExecutor: TaskExecutor {
    /// Over the loops that serve Hearth's connections.
    static let singleton = EventLoopTaskExecutor(group: MultiThreadedEventLoopGroup.singleton)

    let group: any EventLoopGroup

    init(group: any EventLoopGroup) {
        self.group = group
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let loop = MultiThreadedEventLoopGroup.currentEventLoop ?? group.next()
        loop.execute {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}
