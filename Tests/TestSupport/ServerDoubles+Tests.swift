import SampleServer
import SampleServerDoubles

extension SampleServer {
    /// The conditions a test's server answers through: a test that changes them (faults, a hang,
    /// held answers) starts its server with `ServerDoubles`, and is stopped here if it did not.
    package var doubles: ServerDoubles {
        guard let doubles = conditions as? ServerDoubles else { fatalError("this test's sample server was started without ServerDoubles") }
        return doubles
    }
}
