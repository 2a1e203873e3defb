/// Writers of a run's reports: `report.json`, `report.html`, `junit.xml`.
public enum BenchReports {}
