@testable import BenchCore
