import DeadzoneKit

DeadzoneKit.run(URLSessionApp())
