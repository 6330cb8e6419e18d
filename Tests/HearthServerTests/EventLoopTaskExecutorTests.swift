@testable import HearthServer
import NIOCore
import NIOPosix
import Testing

/// Tasks that prefer `EventLoopTaskExecutor` run on an event loop and stay on the loop they
/// started on, across calls into nonisolated async functions, yields and child tasks.
@Suite("Tasks kept on their event loop")
struct EventLoopTaskExecutorTests {
    /// A nonisolated async function: a call into it asks for the generic executor.
    nonisolated static func loopHere() async -> ObjectIdentifier? {
        await Task.yield()
        return MultiThreadedEventLoopGroup.currentEventLoop.map { ObjectIdentifier($0) }
    }

    @Test("a task with the preference runs every part of itself on one event loop")
    func staysOnItsLoop() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let executor = EventLoopTaskExecutor(group: group)
        let loops = await Task(executorPreference: executor) { () -> [ObjectIdentifier?] in
            var seen: [ObjectIdentifier?] = [MultiThreadedEventLoopGroup.currentEventLoop.map { ObjectIdentifier($0) }]
            for _ in 0..<20 {
                seen.append(await Self.loopHere())
            }
            let children = await withTaskGroup(of: ObjectIdentifier?.self) { tasks in
                for _ in 0..<4 { tasks.addTask { await Self.loopHere() } }
                return await tasks.reduce(into: [ObjectIdentifier?]()) { $0.append($1) }
            }
            return seen + children
        }.value
        #expect(loops.count == 25)
        #expect(loops.allSatisfy { $0 != nil })
        #expect(Set(loops.compactMap { $0 }).count == 1)
        try await group.shutdownGracefully()
    }

    @Test("a job queued from a loop's own thread runs on that loop")
    func followsTheQueuingThread() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let executor = EventLoopTaskExecutor(group: group)
        for loop in group.makeIterator() {
            let started = try await loop.submit {
                Task(executorPreference: executor) { await Self.loopHere() }
            }.get()
            #expect(await started.value == ObjectIdentifier(loop))
        }
        try await group.shutdownGracefully()
    }
}
