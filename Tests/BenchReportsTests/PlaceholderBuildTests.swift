import BenchReports
import Testing
